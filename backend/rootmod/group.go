package rootmod

import (
	"os"
	"strconv"
	"syscall"
)

// interruptFollowers interrupts every process in tofu's group but tofu:
// a provisioner's command that started after the first interrupt, which
// tofu's graceful stop would wait for however long it runs. Tofu itself
// is spared, as a second interrupt makes it exit at once and lose state.
// Providers ignore interrupts, as they do at a terminal. Without /proc
// (not Linux) the group's members cannot be listed, and a command that
// outlives tofu is still ended when tofu exits.
func interruptFollowers(leader int) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == leader {
			continue
		}
		if group, err := syscall.Getpgid(pid); err == nil && group == leader {
			_ = syscall.Kill(pid, syscall.SIGINT)
		}
	}
}
