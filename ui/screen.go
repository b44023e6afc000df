package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
)

// screen is one layer of the stack: the list at the bottom, then whatever
// the user opened over it (detail, diff, preview, help, dialogs). The top
// screen gets the keys; every screen gets the other messages and keeps only
// those addressed to it (its unit, its run).
type screen interface {
	update(a *App, msg tea.Msg) tea.Cmd
	view(a *App, now time.Time) string
	// keyHelp is the footer: the keys that work on this screen.
	keyHelp(a *App) string
	setSize(w, h int)
	setTheme(t *themes.Theme)
}

// closer is a screen that holds something to give back when it is closed: a
// run to cancel, a saved plan to remove.
type closer interface{ close() }

// ownContext is the context a screen's backend calls run under, cancelled
// when the screen closes: a read nobody will see must not run on, nor wait
// in the client's rate limit ahead of the next screen's reads and writes.
type ownContext struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func newOwnContext(a *App) ownContext {
	ctx, cancel := context.WithCancel(a.opts.Context)
	return ownContext{ctx: ctx, cancel: cancel}
}

func (o ownContext) close() { o.cancel() }

// unitsChangedMsg tells every screen which units a batch changed, after the
// index holds them.
type unitsChangedMsg struct{ changed map[model.Key]bool }

// push opens a screen over the others.
func (a *App) push(s screen) {
	s.setSize(a.width, a.bodyHeight())
	s.setTheme(a.theme)
	a.stack = append(a.stack, s)
}

// close removes a screen wherever it is in the stack (the list stays).
func (a *App) close(s screen) {
	for i := len(a.stack) - 1; i > 0; i-- {
		if a.stack[i] == s {
			if c, ok := s.(closer); ok {
				c.close()
			}
			a.stack = append(a.stack[:i], a.stack[i+1:]...)
			a.dropToasts(func(t toast) bool { return t.owner == s })
			return
		}
	}
}

// top is the screen that gets the keys.
func (a *App) top() screen { return a.stack[len(a.stack)-1] }

// list is the bottom of the stack, always there: the header and the ":"
// commands describe and narrow it.
func (a *App) list() *listScreen { return a.stack[0].(*listScreen) }

// broadcast hands a message to every screen, bottom first; a screen may
// close itself or open another meanwhile.
func (a *App) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range append([]screen(nil), a.stack...) {
		cmds = append(cmds, s.update(a, msg))
	}
	return tea.Batch(cmds...)
}

// nextID hands out the ids that match answers to their request: plan
// requests, streamed runs.
func (a *App) nextID() int {
	a.ids++
	return a.ids
}

// releasable is an answer that holds something (a saved plan, a connection
// to a state backend) to give back when no screen takes it any more.
type releasable interface {
	runID() int
	release()
}

// owner is a screen that takes the answers of the runs it started.
type owner interface{ owns(id int) bool }

// owned reports whether a screen on the stack still waits for run id.
func (a *App) owned(id int) bool {
	for _, s := range a.stack {
		if o, ok := s.(owner); ok && o.owns(id) {
			return true
		}
	}
	return false
}
