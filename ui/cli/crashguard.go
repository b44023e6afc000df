package cli

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/crash"
)

// crashGuard catches a panic of the workbench (ADR 0024): in the model's
// Update and View, in the commands they return, and in the goroutines that
// feed the program. The first panic ends the program the ordinary way, so
// Bubble Tea restores the terminal, and then its report is written and
// shown: no raw panic value, no raw stack, no terminal left in raw mode.
type crashGuard struct {
	quit func()

	mu     sync.Mutex
	report *crash.Report
}

// recovered records the panic r (call it in a deferred function, with its
// recover()) and ends the program; it reports whether there was one.
func (g *crashGuard) recovered(r any) bool {
	if r == nil {
		return false
	}
	rep := crash.New(r, debug.Stack(), time.Now())
	g.mu.Lock()
	first := g.report == nil
	if first {
		g.report = rep
	}
	g.mu.Unlock()
	if first {
		g.quit()
	}
	return true
}

func (g *crashGuard) crashed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.report != nil
}

// run is f in a goroutine of the program, guarded.
func (g *crashGuard) run(f func()) {
	defer func() { g.recovered(recover()) }()
	f()
}

// cmd guards a command, and the commands of the batch it returns.
func (g *crashGuard) cmd(c tea.Cmd) tea.Cmd {
	if c == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if g.recovered(recover()) {
				msg = nil
			}
		}()
		msg = c()
		if batch, ok := msg.(tea.BatchMsg); ok {
			guarded := make(tea.BatchMsg, len(batch))
			for i, c := range batch {
				guarded[i] = g.cmd(c)
			}
			return guarded
		}
		return msg
	}
}

// failure is the error the session ends with after a panic: the short
// report, with where the full one was written.
func (g *crashGuard) failure() error {
	g.mu.Lock()
	rep := g.report
	g.mu.Unlock()
	if rep == nil {
		return nil
	}
	path, err := rep.Write()
	return &exitError{code: 1, err: errors.New(rep.Short(path, err))}
}

// guardedModel is the workbench's model under the guard; after a panic it
// takes no more messages and draws nothing.
type guardedModel struct {
	inner tea.Model
	g     *crashGuard
}

func (m guardedModel) Init() tea.Cmd {
	defer func() { m.g.recovered(recover()) }()
	return m.g.cmd(m.inner.Init())
}

func (m guardedModel) Update(msg tea.Msg) (out tea.Model, cmd tea.Cmd) {
	if m.g.crashed() {
		return m, nil
	}
	defer func() {
		if m.g.recovered(recover()) {
			out, cmd = m, nil
		}
	}()
	inner, c := m.inner.Update(msg)
	m.inner = inner
	return m, m.g.cmd(c)
}

func (m guardedModel) View() (v tea.View) {
	if m.g.crashed() {
		return v
	}
	defer func() {
		if m.g.recovered(recover()) {
			v = tea.View{}
		}
	}()
	return m.inner.View()
}

// runGuarded runs the model as a program, with background goroutines that
// feed it, under one crash guard.
func runGuarded(ctx context.Context, model tea.Model, background []func(*tea.Program), opts ...tea.ProgramOption) error {
	g := &crashGuard{}
	p := tea.NewProgram(guardedModel{inner: model, g: g}, append([]tea.ProgramOption{tea.WithContext(ctx)}, opts...)...)
	// Quit from any goroutine, the program's own included: Send blocks
	// until the event loop takes the message.
	g.quit = func() { go p.Quit() }
	for _, f := range background {
		go g.run(func() { f(p) })
	}
	_, err := p.Run()
	if cerr := g.failure(); cerr != nil {
		return cerr
	}
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}
