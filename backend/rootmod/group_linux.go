package rootmod

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// interruptFollowers interrupts every process in tofu's group but tofu:
// a provisioner's command that started after the first interrupt, which
// tofu's graceful stop would wait for however long it runs. Tofu itself
// is spared, as a second interrupt makes it exit at once and lose state.
// Providers ignore interrupts, as they do at a terminal.
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
		if groupOf(pid) == leader {
			_ = syscall.Kill(pid, syscall.SIGINT)
		}
	}
}

// groupOf reads a process's group from /proc, or 0.
func groupOf(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 3 {
		return 0
	}
	group, _ := strconv.Atoi(fields[2])
	return group
}
