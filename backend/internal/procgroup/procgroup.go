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
	name, bin string
	env, args []string
	cmd       *exec.Cmd
	done      chan struct{}
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
	p, err := g.start(name, bin, env, args, os.O_TRUNC)
	if err != nil {
		return err
	}
	g.procs = append(g.procs, p)
	return nil
}

// Restart stops the named process and starts it again as it was started,
// its output added to its log: a component restarting under its clients.
func (g *Group) Restart(name string) error {
	for i, p := range g.procs {
		if p.name != name {
			continue
		}
		stop(p)
		next, err := g.start(p.name, p.bin, p.env, p.args, os.O_APPEND)
		if err != nil {
			return err
		}
		g.procs[i] = next
		return nil
	}
	return fmt.Errorf("no process %s in the group", name)
}

// Freeze stops the named process where it is (SIGSTOP) until the returned
// thaw continues it: a component holding still while what it would
// disturb is measured.
func (g *Group) Freeze(name string) (thaw func(), err error) {
	for _, p := range g.procs {
		if p.name == name {
			if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				return nil, err
			}
			return func() { _ = p.cmd.Process.Signal(syscall.SIGCONT) }, nil
		}
	}
	return nil, fmt.Errorf("no process %s in the group", name)
}

// start runs one process; mode is os.O_TRUNC or os.O_APPEND for its log.
func (g *Group) start(name, bin string, env, args []string, mode int) (*process, error) {
	logFile, err := os.OpenFile(filepath.Join(g.Dir, name+".log"), os.O_CREATE|os.O_WRONLY|mode, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Dir = g.Dir
	// The components die with the test process, even when it is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, bin: bin, env: env, args: args, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// Running tells whether the named process still runs after grace: a
// component that lost the race for its port to another process exits at
// once, while the port it waited on answers (the other's).
func (g *Group) Running(name string, grace time.Duration) bool {
	for _, p := range g.procs {
		if p.name == name {
			select {
			case <-p.done:
				return false
			case <-time.After(grace):
				return true
			}
		}
	}
	return false
}

// Forget stops the named process and drops it from the group, to start it
// again another way.
func (g *Group) Forget(name string) {
	for i, p := range g.procs {
		if p.name == name {
			stop(p)
			g.procs = append(g.procs[:i], g.procs[i+1:]...)
			return
		}
	}
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

// Output is all a component has written so far (stdout and stderr), for
// a test that reads the real component's log.
func (g *Group) Output(name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(g.Dir, name+".log"))
	return string(b), err
}

// Stop ends every process, the last started first, and removes the directory.
func (g *Group) Stop() error {
	for i := len(g.procs) - 1; i >= 0; i-- {
		stop(g.procs[i])
	}
	g.procs = nil
	return os.RemoveAll(g.Dir)
}

// stop ends a process: SIGTERM, then SIGKILL after 10 s.
func stop(p *process) {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
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
