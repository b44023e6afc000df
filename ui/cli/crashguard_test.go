package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
	"golang.org/x/term"
)

const crashSecret = "PLANTED-crash-value-8c9d"

// panicky is a workbench that panics, with a value quoting a secret and an
// escape sequence, where the test asks: in Update ("u"), in a command it
// returns ("c"), or in a goroutine feeding the program ("g").
type panicky struct{ background chan struct{} }

func (panicky) Init() tea.Cmd { return nil }

func (m panicky) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	switch k.String() {
	case "u":
		panic("object db holds " + crashSecret + " \x1b[2J")
	case "c":
		return m, tea.Batch(func() tea.Msg { return nil }, func() tea.Msg { panic(errors.New("decoding " + crashSecret)) })
	case "g":
		close(m.background)
	}
	return m, nil
}

func (panicky) View() tea.View {
	v := tea.NewView("workbench ready")
	v.AltScreen = true
	return v
}

// syncEmulator is a terminal emulator fed from the pseudo-terminal.
type syncEmulator struct {
	mu  sync.Mutex
	emu *vt.Emulator
	raw []byte
}

func (e *syncEmulator) Write(b []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.raw = append(e.raw, b...)
	return e.emu.Write(b)
}

func (e *syncEmulator) state() (screen string, alt bool, raw string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.emu.String(), e.emu.IsAltScreen(), string(e.raw)
}

// A panic in the workbench, wherever it happens, ends the session with the
// terminal restored exactly (out of raw mode, off the alternate screen), a
// short report naming the file of the full one, exit code 1; neither the
// terminal nor the file holds the panic's value or a raw stack.
func TestAPanicRestoresTheTerminalAndReportsWithoutItsValue(t *testing.T) {
	for _, where := range []string{"u", "c", "g"} {
		t.Run(map[string]string{"u": "in Update", "c": "in a command", "g": "in a goroutine"}[where], func(t *testing.T) {
			state := t.TempDir()
			t.Setenv("XDG_STATE_HOME", state)
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pseudo-terminal: %v", err)
			}
			defer ptmx.Close()
			defer tty.Close()
			_ = pty.Setsize(ptmx, &pty.Winsize{Rows: 10, Cols: 80})
			before, err := term.GetState(int(tty.Fd()))
			if err != nil {
				t.Fatal(err)
			}
			emu := &syncEmulator{emu: vt.NewEmulator(80, 10)}
			// Answer the program's queries as a terminal does.
			go func() { _, _ = io.Copy(ptmx, emu.emu) }()
			go func() {
				buf := make([]byte, 4096)
				for {
					n, err := ptmx.Read(buf)
					_, _ = emu.Write(buf[:n])
					if err != nil {
						return
					}
				}
			}()
			m := panicky{background: make(chan struct{})}
			feed := func(*tea.Program) {
				<-m.background
				panic("feeding " + crashSecret)
			}
			// Bubble Tea's own panic report goes to the process's stderr,
			// which is the terminal when a user runs driftdeck.
			stderr := os.Stderr
			os.Stderr = tty
			defer func() { os.Stderr = stderr }()
			done := make(chan error, 1)
			go func() {
				done <- runGuarded(context.Background(), m, []func(*tea.Program){feed}, tea.WithInput(tty), tea.WithOutput(tty), tea.WithoutSignals())
			}()
			deadline := time.Now().Add(20 * time.Second)
			for s, _, _ := emu.state(); !strings.Contains(s, "workbench ready"); s, _, _ = emu.state() {
				if time.Now().After(deadline) {
					t.Fatalf("the workbench never drew:\n%s", s)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if during, _ := term.GetState(int(tty.Fd())); reflect.DeepEqual(during, before) {
				t.Fatal("the program did not put the terminal in raw mode: restoring it proves nothing")
			}
			if _, err := ptmx.Write([]byte(where)); err != nil {
				t.Fatal(err)
			}
			var runErr error
			select {
			case runErr = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the program did not end after the panic")
			}
			after, _ := term.GetState(int(tty.Fd()))
			if !reflect.DeepEqual(after, before) {
				t.Error("the terminal was left in the program's mode")
			}
			// The reader drains what the program wrote last: on a busy
			// machine that takes a moment after the program has ended.
			_, alt, raw := emu.state()
			for wait := time.Now().Add(10 * time.Second); alt && time.Now().Before(wait); _, alt, raw = emu.state() {
				time.Sleep(10 * time.Millisecond)
			}
			if alt {
				t.Error("the terminal was left on the alternate screen")
			}
			if strings.Contains(raw, crashSecret) || strings.Contains(raw, "goroutine ") {
				t.Errorf("the terminal got the panic's value or stack:\n%q", raw)
			}
			var ee *exitError
			if !errors.As(runErr, &ee) || exitCode(runErr) != 1 {
				t.Fatalf("want exit 1 with the report, got %v", runErr)
			}
			short := runErr.Error()
			files, _ := os.ReadDir(state + "/driftdeck")
			if len(files) != 1 || !strings.Contains(short, "driftdeck crashed") || !strings.Contains(short, state+"/driftdeck/"+files[0].Name()) {
				t.Fatalf("the short report must name the one report file (%v):\n%s", files, short)
			}
			full, _ := os.ReadFile(state + "/driftdeck/" + files[0].Name())
			for what, text := range map[string]string{"short report": short, "report file": string(full)} {
				if strings.Contains(text, crashSecret) || strings.Contains(text, "\x1b") {
					t.Errorf("the %s holds the panic's value:\n%s", what, text)
				}
			}
			if !strings.Contains(string(full), "crashguard_test.go:") {
				t.Errorf("the report file lacks where it panicked:\n%s", full)
			}
		})
	}
}
