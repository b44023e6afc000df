//go:build unix

package pulumistate

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processState says whether the process pid, which took a lock at
// lockedAt, still runs on this host. A zombie, or a process that started
// after the lock was taken (the pid was reused), is the lock holder no more.
func processState(pid int, lockedAt time.Time) Holder {
	if pid <= 0 {
		return HolderUnknown
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return HolderDead
	} else if err != nil && !errors.Is(err, syscall.EPERM) {
		return HolderUnknown
	}
	if zombie, started, ok := procStat(pid); ok && (zombie || started.After(lockedAt.Add(2*time.Second))) {
		return HolderDead
	}
	return HolderAlive
}

// procStat reads a process's state and start time from /proc (Linux).
func procStat(pid int) (zombie bool, started time.Time, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false, time.Time{}, false
	}
	// Fields after the command name, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(fields) < 20 {
		return false, time.Time{}, false
	}
	ticks, err1 := strconv.ParseInt(fields[19], 10, 64)
	boot, err2 := bootTime()
	if err1 != nil || err2 != nil {
		return fields[0] == "Z", time.Time{}, true
	}
	// Start times count clock ticks since boot; USER_HZ is 100 on Linux.
	return fields[0] == "Z", boot.Add(time.Duration(ticks) * time.Second / 100), true
}

func bootTime() (time.Time, error) {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for _, line := range strings.Split(string(stat), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return time.Unix(sec, 0), err
		}
	}
	return time.Time{}, errors.New("no btime in /proc/stat")
}
