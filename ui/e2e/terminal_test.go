package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// terminal runs the real driftdeck binary in a pseudo-terminal and keeps
// what it draws in a terminal emulator, so a test reads the screen a user
// would see.
type terminal struct {
	t   *testing.T
	cmd *exec.Cmd
	pty *os.File
	mu  sync.Mutex // guards emu, inFrame and before
	emu *vt.Emulator
	// inFrame: the emulator is inside a synchronized update (mode 2026),
	// a frame the program is drawing; before is the screen as it was when
	// the frame began. A real terminal shows a frame only once whole.
	inFrame bool
	before  string
	// rawMu guards raw and fed; more is signalled when raw grows.
	rawMu sync.Mutex
	more  *sync.Cond
	raw   bytes.Buffer // every byte the program wrote
	fed   int          // how much of raw the emulator has parsed
	eof   bool         // the program's end of the terminal is closed
	done  chan error
}

// Deadlines of the waits: each wait polls for what the program promises and
// returns as soon as it shows, so a deadline only costs time when a test
// fails. They are generous so that a busy machine (two cores shared by
// several builds) does not fail a test that would pass a moment later.
const (
	// startup covers a cold start of a binary built with -race.
	startup = 60 * time.Second
	// promptly covers one key and what it promises, a write included.
	promptly = 20 * time.Second
)

func start(t *testing.T, width, height int, env []string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(binary, args...)
	// Bubble Tea asks an SSH session's terminal for nothing, not even
	// whether it draws frames whole; this terminal is no SSH session.
	for _, v := range os.Environ() {
		if !strings.HasPrefix(v, "SSH_TTY=") {
			cmd.Env = append(cmd.Env, v)
		}
	}
	cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "TERM=xterm-256color")
	// A goroutine running when goroutines() asks for the dump is printed
	// by its own thread only with crash: a busy event loop shows where.
	cmd.Env = append(cmd.Env, "GOTRACEBACK=crash")
	cmd.Env = append(cmd.Env, env...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(height), Cols: uint16(width)})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, cmd: cmd, pty: f, emu: vt.NewEmulator(width, height), done: make(chan error, 1)}
	term.drawsFramesWhole()
	term.more = sync.NewCond(&term.rawMu)
	go term.pump()
	go term.feed()
	// Answer the program's terminal queries (colours, capabilities) the way
	// a real terminal does.
	go func() { _, _ = io.Copy(f, term.emu) }()
	go func() { term.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = f.Close()
	})
	return term
}

// drawsFramesWhole makes the emulator a terminal that knows synchronized
// output: it answers Bubble Tea's query for mode 2026 with "supported, off",
// so the program wraps each frame in it, and a screen read mid-frame is the
// one before it, never half of each.
func (term *terminal) drawsFramesWhole() {
	term.emu.SetCallbacks(vt.Callbacks{
		EnableMode: func(m ansi.Mode) {
			if m == ansi.ModeSynchronizedOutput {
				term.inFrame, term.before = true, term.emu.String()
			}
		},
		DisableMode: func(m ansi.Mode) {
			if m == ansi.ModeSynchronizedOutput {
				term.inFrame = false
			}
		},
	})
	_, _ = term.emu.Write([]byte(ansi.ResetModeSynchronizedOutput))
}

// pump reads what the program writes as fast as it comes: a program whose
// output is not read blocks in its renderer and stops reading its keys, so
// the parsing (slow in a race-built test) is left to feed.
func (term *terminal) pump() {
	buf := make([]byte, 32*1024)
	for {
		n, err := term.pty.Read(buf)
		term.rawMu.Lock()
		term.raw.Write(buf[:n])
		term.eof = err != nil
		term.more.Broadcast()
		term.rawMu.Unlock()
		if err != nil {
			return
		}
	}
}

// feed hands what the program wrote to the emulator, in order, until the
// terminal is closed and all of it is parsed.
func (term *terminal) feed() {
	for {
		term.rawMu.Lock()
		for term.fed == term.raw.Len() && !term.eof {
			term.more.Wait()
		}
		if term.fed == term.raw.Len() {
			term.rawMu.Unlock()
			return
		}
		chunk := bytes.Clone(term.raw.Bytes()[term.fed:])
		term.rawMu.Unlock()
		term.mu.Lock()
		_, _ = term.emu.Write(chunk)
		term.mu.Unlock()
		term.rawMu.Lock()
		term.fed += len(chunk)
		term.more.Broadcast()
		term.rawMu.Unlock()
	}
}

// parsed waits (at most timeout) until the emulator has parsed all the
// program wrote up to its end: the screen is then the last one drawn.
func (term *terminal) parsed(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		term.rawMu.Lock()
		done := term.eof && term.fed == term.raw.Len()
		term.rawMu.Unlock()
		if done {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// screen is the text on the terminal now: the last whole frame.
func (term *terminal) screen() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	if term.inFrame {
		return term.before
	}
	return term.emu.String()
}

// written is every byte the program wrote to the terminal so far.
func (term *terminal) written() []byte {
	term.rawMu.Lock()
	defer term.rawMu.Unlock()
	return bytes.Clone(term.raw.Bytes())
}

func (term *terminal) altScreen() bool {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.emu.IsAltScreen()
}

// send types keys as a terminal sends them.
func (term *terminal) send(keys string) {
	term.t.Helper()
	if _, err := term.pty.Write([]byte(keys)); err != nil {
		term.t.Fatal(err)
	}
}

// waitFor polls the screen until every text is on it.
func (term *terminal) waitFor(timeout time.Duration, texts ...string) string {
	term.t.Helper()
	missing := ""
	s, late := term.poll(timeout, func(s string) bool {
		missing = ""
		for _, x := range texts {
			if !strings.Contains(s, x) {
				missing = x
				return false
			}
		}
		return true
	})
	if late != "" {
		term.t.Fatalf("after %v the screen lacks %q%s:\n%s", timeout, missing, late, s)
	}
	return s
}

// waitUntil polls until cond holds on the screen.
func (term *terminal) waitUntil(timeout time.Duration, what string, cond func(screen string) bool) string {
	term.t.Helper()
	s, late := term.poll(timeout, cond)
	if late != "" {
		term.t.Fatalf("after %v: %s%s, screen:\n%s", timeout, what, late, s)
	}
	return s
}

// poll checks cond on the screen every 20 ms until it holds, or timeout
// passed and the emulator parsed all the program had written by then: the
// test's own parsing (a race-built emulator on a busy machine fell 20 s
// behind a program that had drawn in time) must not fail the program. It
// gives that parsing at most timeout more. late, when cond never held, says
// how far the program and the emulator had got. The screen is read again
// only once the emulator has parsed more: only that changes it (a
// race-built emulator's 150x45 screen is 1.5 ms of CPU to read, and most
// polls of a wait find nothing new).
func (term *terminal) poll(timeout time.Duration, cond func(screen string) bool) (screen, late string) {
	deadline := time.Now().Add(timeout)
	target, parsing := -1, time.Time{} // written by the deadline; the end of the grace
	var passing passingLines
	var s string
	read := -1 // what the emulator had parsed when s was read
	for {
		parsed, _ := term.progress()
		if parsed != read {
			read = parsed
			s = term.screen() // holds at least the parsed bytes
			passing.saw(s)
			if cond(s) {
				if target >= 0 {
					term.t.Logf("the screen showed it %v after the deadline, once the emulator had parsed what the program wrote by then", time.Since(deadline).Round(time.Millisecond))
				}
				return s, ""
			}
		}
		if now := time.Now(); now.After(deadline) {
			if target < 0 {
				_, target = term.progress()
				parsing = now.Add(timeout)
			}
			if parsed >= target || now.After(parsing) {
				unread, _ := term.unread()
				late = fmt.Sprintf(" (the emulator parsed %d of the %d bytes the program had written by then; %d typed bytes unread by the program)", parsed, target, unread)
				late += passing.gone(s)
				if parsed >= target {
					// The program is what is late: what it waits for.
					late += "; its goroutines:\n" + term.goroutines() + "\nthe screen"
				}
				return s, late
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// progress is how much of what the program wrote the emulator has parsed,
// and how much it wrote.
func (term *terminal) progress() (parsed, written int) {
	term.rawMu.Lock()
	defer term.rawMu.Unlock()
	return term.fed, term.raw.Len()
}

// exit waits for the program to end and returns its exit code.
func (term *terminal) exit(timeout time.Duration) int {
	term.t.Helper()
	select {
	case err := <-term.done:
		term.parsed(5 * time.Second)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			term.t.Fatal(err)
		}
		return 0
	case <-time.After(timeout):
		term.t.Fatalf("driftdeck did not exit within %v; screen:\n%s\nits goroutines:\n%s", timeout, term.screen(), term.goroutines())
	}
	return -1
}

// goroutines has the program print where each of its goroutines is (Go
// does so on SIGQUIT, to the terminal) and returns that dump: what a hung
// program waits for.
func (term *terminal) goroutines() string {
	before := len(term.written())
	if err := term.cmd.Process.Signal(syscall.SIGQUIT); err != nil {
		return err.Error()
	}
	select {
	case err := <-term.done:
		term.done <- err
	case <-time.After(15 * time.Second): // each thread dumps in turn
	}
	out := term.written()[before:]
	if i := bytes.Index(out, []byte("goroutine ")); i >= 0 {
		out = out[i:]
	}
	return string(out)
}

// quitWritingNoneRaw quits with q, expecting exit code 0, and fails for
// each of raws the program wrote to the terminal as it came: text from a
// cluster is only ever shown escaped.
func (term *terminal) quitWritingNoneRaw(raws ...string) []byte {
	term.t.Helper()
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		term.t.Fatalf("exit code %d", code)
	}
	out := term.written()
	for _, raw := range raws {
		if i := bytes.Index(out, []byte(raw)); i >= 0 {
			term.t.Errorf("the TUI wrote %q from the cluster raw: …%q…", raw, out[max(i-40, 0):min(i+60, len(out))])
		}
	}
	return out
}

// passingLines keeps the lines a wait saw, so that a failed wait can name
// what came and went before its end: a toast that said why a key did
// nothing is gone from the last screen.
type passingLines struct {
	order []string
	seen  map[string]bool
}

func (p *passingLines) saw(screen string) {
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	for _, l := range strings.Split(screen, "\n") {
		if l = strings.TrimSpace(l); l != "" && !p.seen[l] && len(p.order) < 200 {
			p.seen[l] = true
			p.order = append(p.order, l)
		}
	}
}

// gone lists the lines seen during the wait that the last screen lacks.
func (p *passingLines) gone(last string) string {
	now := map[string]bool{}
	for _, l := range strings.Split(last, "\n") {
		now[strings.TrimSpace(l)] = true
	}
	var gone []string
	for _, l := range p.order {
		if !now[l] {
			gone = append(gone, "  "+l)
		}
	}
	if len(gone) == 0 {
		return ""
	}
	return "; lines shown during the wait and gone by its end:\n" + strings.Join(gone, "\n")
}
