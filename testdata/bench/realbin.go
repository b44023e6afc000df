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
	// Loaded is /proc/<pid>/status after LoadFor of status changes streamed
	// in (LoadRate a second) while keys move the cursor.
	Loaded   memory
	LoadFor  time.Duration
	LoadRate float64
	// Threads and Sockets are the TUI's, counted with Memory.
	Threads, Sockets int
}

// countThreadsAndSockets reads a process's thread count and open sockets.
func countThreadsAndSockets(pid string) (threads, sockets int) {
	if tasks, err := os.ReadDir("/proc/" + pid + "/task"); err == nil {
		threads = len(tasks)
	}
	fds, _ := os.ReadDir("/proc/" + pid + "/fd")
	for _, fd := range fds {
		if target, err := os.Readlink("/proc/" + pid + "/fd/" + fd.Name()); err == nil && strings.HasPrefix(target, "socket:") {
			sockets++
		}
	}
	return threads, sockets
}

// loadFor is how long the binary is kept busy before its memory is read
// again.
const loadFor = 15 * time.Second

// binaryRun is what the binary is run against.
type binaryRun struct {
	bin, kubeconfig string
	args            []string // more flags, e.g. --context a,b
	units, runs     int
	idle            time.Duration
	// load starts the status changes streamed before memory is read again.
	load func() (churnGroup, error)
	// status runs `driftdeck status -o json` first, timed.
	status bool
}

// isolatedEnv keeps the binary away from the user's config and state.
func isolatedEnv(dir string) []string {
	return append(os.Environ(), "XDG_CONFIG_HOME="+dir+"/config", "XDG_STATE_HOME="+dir+"/state", "TERM=xterm-256color")
}

func runBinary(b binaryRun) (binaryResult, error) {
	var res binaryResult
	dir, err := os.MkdirTemp("", "driftdeck-bench-bin-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)

	if b.status {
		var out countingWriter
		cmd := exec.Command(b.bin, append([]string{"status", "-o", "json", "--kubeconfig", b.kubeconfig}, b.args...)...)
		cmd.Env, cmd.Stdout, cmd.Stderr = isolatedEnv(dir), &out, os.Stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return res, fmt.Errorf("driftdeck status: %w", err)
		}
		res.StatusRun, res.StatusBytes = time.Since(start), out.n
	}

	for i := range b.runs {
		last := i == b.runs-1
		var m *binaryResult
		if last {
			m = &res
		}
		full, err := runTUI(b, dir, m)
		if err != nil {
			return res, err
		}
		res.FullScreen = append(res.FullScreen, full)
	}
	return res, nil
}

// runTUI starts the TUI in a pseudo-terminal and times it until the screen
// shows every unit; when measure is set it then records its memory and idle
// CPU there, and its memory again after a while under load. It quits with q.
func runTUI(b binaryRun, dir string, measure *binaryResult) (full time.Duration, err error) {
	cmd := exec.Command(b.bin, append([]string{"--kubeconfig", b.kubeconfig}, b.args...)...)
	cmd.Env = isolatedEnv(dir)
	start := time.Now()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: screenH, Cols: screenW})
	if err != nil {
		return 0, err
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

	want := fmt.Sprintf("%d units", b.units)
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(term.text(), want) {
		select {
		case err := <-exited:
			return 0, fmt.Errorf("driftdeck exited before showing %q: %v; screen:\n%s", want, err, term.text())
		default:
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("driftdeck did not show %q within 5 minutes; screen:\n%s", want, term.text())
		}
		time.Sleep(5 * time.Millisecond)
	}
	full = time.Since(start)
	if measure != nil {
		if err := measureTUI(measure, f, strconv.Itoa(cmd.Process.Pid), b.idle, b.load); err != nil {
			return full, err
		}
	}
	if _, err := f.Write([]byte("q")); err != nil {
		return full, err
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return full, err
		}
	case <-time.After(10 * time.Second):
		return full, errors.New("driftdeck did not quit on q within 10 s")
	}
	return full, nil
}

// measureTUI reads the memory of the TUI at pid 3 s after its full screen,
// its idle CPU, then its memory after loadFor of status changes while keys
// typed into tty move the cursor down and up.
func measureTUI(res *binaryResult, tty *os.File, pid string, idle time.Duration, load func() (churnGroup, error)) error {
	time.Sleep(3 * time.Second)
	var err error
	if res.Memory, err = readMemory(pid); err != nil {
		return err
	}
	res.Threads, res.Sockets = countThreadsAndSockets(pid)
	if idle > 0 {
		if res.IdleCPU, err = idleCPU(pid, idle); err != nil {
			return err
		}
		res.IdleFor = idle
	}
	if load == nil {
		return nil
	}
	churns, err := load()
	if err != nil {
		return err
	}
	stop := func() float64 { _, _, rate := churns.stop(); return rate }
	keys := []string{"j", "k"}
	for i, end := 0, time.Now().Add(loadFor); time.Now().Before(end); i++ {
		if _, err := tty.Write([]byte(keys[i/40%2])); err != nil {
			stop()
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	res.LoadRate, res.LoadFor = stop(), loadFor
	res.Loaded, err = readMemory(pid)
	return err
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
