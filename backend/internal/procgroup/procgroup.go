// Package procgroup runs the real controllers the test harnesses start
// (testargocd, testflux): each with its output in a log file of the group's
// directory, dying with the test process, and stopped together in reverse
// order.
package procgroup

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Group is a set of processes sharing one directory.
type Group struct {
	Dir   string
	procs []*process
}

type process struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// New makes a group in a new temporary directory named after prefix.
func New(prefix string) (*Group, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	return &Group{Dir: dir}, nil
}

// Run starts bin with args and the extra environment, its working directory
// the group's, its output in <name>.log.
func (g *Group) Run(name, bin string, env []string, args ...string) error {
	logFile, err := os.Create(filepath.Join(g.Dir, name+".log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Dir = g.Dir
	// The components die with the test process, even when it is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	g.procs = append(g.procs, p)
	return nil
}

// Failed wraps a start-up error with the tail of the component's log.
func (g *Group) Failed(name string, err error) error {
	return fmt.Errorf("%s did not come up: %w\n%s", name, err, g.Log(name))
}

// Log is the tail of a component's output, for a failing test's message.
func (g *Group) Log(name string) string {
	b, err := os.ReadFile(filepath.Join(g.Dir, name+".log"))
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	return strings.Join(lines, "\n")
}

// Stop ends every process, the last started first, and removes the directory.
func (g *Group) Stop() error {
	for i := len(g.procs) - 1; i >= 0; i-- {
		p := g.procs[i]
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
	g.procs = nil
	return os.RemoveAll(g.Dir)
}

// FreePorts returns n distinct free TCP ports on 127.0.0.1.
func FreePorts(n int) ([]string, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	return out, nil
}

// WaitListening waits until something accepts connections on addr.
func WaitListening(addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing listens on %s after %v: %w", addr, within, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
