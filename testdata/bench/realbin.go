package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// binaryResult is what the real driftdeck binary shows from outside.
type binaryResult struct {
	// StatusRun is `driftdeck status -o json` from exec to exit: connect,
	// every first list, the whole model printed.
	StatusRun   time.Duration
	StatusBytes int
	// FullScreen is the TUI, in a pseudo-terminal, from exec until the
	// screen shows every unit, once per run.
	FullScreen []time.Duration
	Memory     memory // /proc/<pid>/status a few seconds after that
	IdleCPU    float64
	IdleFor    time.Duration
}

// isolatedEnv keeps the binary away from the user's config and state.
func isolatedEnv(dir string) []string {
	return append(os.Environ(), "XDG_CONFIG_HOME="+dir+"/config", "XDG_STATE_HOME="+dir+"/state", "TERM=xterm-256color")
}

func runBinary(bin, kubeconfig string, units, runs int, idle time.Duration) (binaryResult, error) {
	var res binaryResult
	dir, err := os.MkdirTemp("", "driftdeck-bench-bin-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)

	var out countingWriter
	cmd := exec.Command(bin, "status", "-o", "json", "--kubeconfig", kubeconfig)
	cmd.Env, cmd.Stdout, cmd.Stderr = isolatedEnv(dir), &out, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return res, fmt.Errorf("driftdeck status: %w", err)
	}
	res.StatusRun, res.StatusBytes = time.Since(start), out.n

	for i := range runs {
		last := i == runs-1
		full, mem, idlePct, err := runTUI(bin, kubeconfig, dir, units, last, idle)
		if err != nil {
			return res, err
		}
		res.FullScreen = append(res.FullScreen, full)
		if last {
			res.Memory, res.IdleCPU, res.IdleFor = mem, idlePct, idle
		}
	}
	return res, nil
}

// runTUI starts the TUI in a pseudo-terminal and times it until the screen
// shows every unit; when measure is set it then reads its memory and idle
// CPU. It quits with q.
func runTUI(bin, kubeconfig, dir string, units int, measure bool, idle time.Duration) (full time.Duration, mem memory, idlePct float64, err error) {
	cmd := exec.Command(bin, "--kubeconfig", kubeconfig)
	cmd.Env = isolatedEnv(dir)
	start := time.Now()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: screenH, Cols: screenW})
	if err != nil {
		return 0, mem, 0, err
	}
	term := &screen{emu: vt.NewEmulator(screenW, screenH)}
	go term.pump(f)
	go func() { _, _ = io.Copy(f, term.emu) }() // answer the program's terminal queries
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		_ = f.Close()
	}()

	want := fmt.Sprintf("%d units", units)
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(term.text(), want) {
		select {
		case err := <-exited:
			return 0, mem, 0, fmt.Errorf("driftdeck exited before showing %q: %v; screen:\n%s", want, err, term.text())
		default:
		}
		if time.Now().After(deadline) {
			return 0, mem, 0, fmt.Errorf("driftdeck did not show %q within 5 minutes; screen:\n%s", want, term.text())
		}
		time.Sleep(5 * time.Millisecond)
	}
	full = time.Since(start)
	if measure {
		time.Sleep(3 * time.Second)
		pid := strconv.Itoa(cmd.Process.Pid)
		if mem, err = readMemory(pid); err != nil {
			return full, mem, 0, err
		}
		if idle > 0 {
			if idlePct, err = idleCPU(pid, idle); err != nil {
				return full, mem, 0, err
			}
		}
	}
	if _, err := f.Write([]byte("q")); err != nil {
		return full, mem, idlePct, err
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return full, mem, idlePct, err
		}
	case <-time.After(10 * time.Second):
		return full, mem, idlePct, errors.New("driftdeck did not quit on q within 10 s")
	}
	return full, mem, idlePct, nil
}

// screen is a terminal emulator fed by the program's output.
type screen struct {
	mu  sync.Mutex
	emu *vt.Emulator
}

func (s *screen) pump(f *os.File) {
	buf := make([]byte, 64*1024)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			s.mu.Lock()
			_, _ = s.emu.Write(buf[:n])
			s.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.String()
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return len(p), nil
}
