package testcluster

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// processGuard kills this process's etcd and kube-apiserver children and
// removes their files if the process dies without stopping them: a test
// timeout panics past every cleanup, and ^C does not reach them since envtest
// starts them in process groups of their own. A small shell, which ignores
// those signals, holds the list and acts when its stdin (our end) closes.
type processGuard struct {
	mu    sync.Mutex
	stdin io.WriteCloser
	err   error
}

var guard processGuard

const guardScript = `trap '' INT TERM HUP
pids= dirs=
while read -r what arg; do
	case $what in
	reset) pids= dirs= ;;
	pid) pids="$pids $arg" ;;
	dir) dirs="$dirs
$arg" ;;
	esac
done
[ -n "$pids" ] || exit 0
kill -KILL $pids 2>/dev/null
for i in 1 2 3 4 5; do
	alive=
	for p in $pids; do
		[ -d /proc/$p ] && [ "$(cut -d' ' -f3 /proc/$p/stat 2>/dev/null)" != Z ] && alive=1
	done
	[ -n "$alive" ] || break
	sleep 1
done
printf '%s\n' "$dirs" | while IFS= read -r d; do [ -n "$d" ] && rm -rf -- "$d"; done
exit 0
`

// update tells the guard the current control plane processes and directories.
func (g *processGuard) update() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stdin == nil && g.err == nil {
		g.err = g.start()
	}
	if g.err != nil {
		return // best effort: the normal stop paths still work
	}
	var b strings.Builder
	b.WriteString("reset\n")
	for _, pid := range controlPlaneProcesses() {
		fmt.Fprintf(&b, "pid %d\n", pid)
	}
	for _, dir := range live.dirs() {
		fmt.Fprintf(&b, "dir %s\n", dir)
	}
	if _, err := io.WriteString(g.stdin, b.String()); err != nil {
		g.err = err
	}
}

func (g *processGuard) start() error {
	cmd := exec.Command("sh", "-c", guardScript)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() //nolint:errcheck // only reaps it; it reports nothing
	g.stdin = in
	return nil
}

// controlPlaneProcesses lists the live etcd and kube-apiserver children of
// this process.
func controlPlaneProcesses() []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	self := os.Getpid()
	var out []int
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		pid, comm, state, ppid, ok := parseStat(string(raw))
		if ok && ppid == self && state != "Z" && (comm == "etcd" || comm == "kube-apiserver") {
			out = append(out, pid)
		}
	}
	return out
}

// parseStat reads /proc/<pid>/stat: "pid (comm) state ppid ...", where comm
// may itself hold spaces and parentheses.
func parseStat(s string) (pid int, comm, state string, ppid int, ok bool) {
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return 0, "", "", 0, false
	}
	pid, err1 := strconv.Atoi(strings.TrimSpace(s[:open]))
	rest := strings.Fields(s[closing+1:])
	if err1 != nil || len(rest) < 2 {
		return 0, "", "", 0, false
	}
	ppid, err2 := strconv.Atoi(rest[1])
	return pid, s[open+1 : closing], rest[0], ppid, err2 == nil
}
