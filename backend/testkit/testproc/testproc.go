// Package testproc finds the processes a test left running.
package testproc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Under lists the processes whose executable or working directory lies
// under dir, as "pid command" (read from /proc: Linux only).
func Under(dir string) []string {
	dir = filepath.Clean(dir)
	ents, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		for _, link := range []string{"exe", "cwd"} {
			target, err := os.Readlink(filepath.Join("/proc", e.Name(), link))
			if err != nil || !within(dir, strings.TrimSuffix(target, " (deleted)")) {
				continue
			}
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			found = append(found, fmt.Sprintf("%d %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
			break
		}
	}
	return found
}

func within(dir, path string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// NoneLeftUnder fails the test if a process still runs under dir (see
// Under) after a grace period for ones on their way out, and kills it so
// that it does not outlive the test.
func NoneLeftUnder(t testing.TB, dir string, grace time.Duration) {
	t.Helper()
	var left []string
	for deadline := time.Now().Add(grace); ; time.Sleep(50 * time.Millisecond) {
		if left = Under(dir); len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			break
		}
	}
	t.Errorf("still running under %s %v after the test (killed now):\n%s", dir, grace, strings.Join(left, "\n"))
	for _, p := range left {
		pid, _ := strconv.Atoi(strings.Fields(p)[0])
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
