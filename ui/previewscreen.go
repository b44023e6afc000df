package ui

import (
	"context"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/stackops"
	"github.com/driftdeck/driftdeck/views/preview"
)

// previewScreen streams a Pulumi preview (then, once approved, the apply of
// its plan) into the preview view as the engine's events arrive.
type previewScreen struct {
	key      model.Key
	view     *preview.Model
	events   chan pulumirun.Event
	cancel   context.CancelFunc
	running  bool
	applying bool
	reviewed *stackops.Reviewed
}

type previewEventMsg struct {
	events chan pulumirun.Event
	event  pulumirun.Event
}

type previewDoneMsg struct {
	key      model.Key
	reviewed *stackops.Reviewed
	err      error
}

type applyDoneMsg struct {
	key model.Key
	res pulumirun.Result
	err error
}

// openPreview starts a preview of the current Stack.
func (a *App) openPreview() tea.Cmd {
	u := a.current()
	if u == nil {
		return nil
	}
	p := &previewScreen{key: u.Key, view: preview.New(a.theme, "preview of "+u.Key.Ref())}
	a.preview = p
	a.layout()
	return a.startStream(func(ctx context.Context, onEvent func(pulumirun.Event)) tea.Msg {
		rv, err := a.opts.Backend.Preview(ctx, u.Key, onEvent)
		return previewDoneMsg{key: u.Key, reviewed: rv, err: err}
	})
}

// startStream runs one streamed Pulumi call: events flow through a channel
// the screen reads one message at a time; run's result ends the stream.
func (a *App) startStream(run func(ctx context.Context, onEvent func(pulumirun.Event)) tea.Msg) tea.Cmd {
	p := a.preview
	ctx, cancel := context.WithCancel(a.opts.Context)
	events := make(chan pulumirun.Event, 1024)
	p.events, p.cancel, p.running = events, cancel, true
	call := func() tea.Msg {
		defer close(events)
		return run(ctx, func(e pulumirun.Event) { events <- e })
	}
	return tea.Batch(call, nextEvent(events))
}

func nextEvent(events chan pulumirun.Event) tea.Cmd {
	return func() tea.Msg {
		e, ok := <-events
		if !ok {
			return nil
		}
		return previewEventMsg{events: events, event: e}
	}
}

func (a *App) onPreviewEvent(m previewEventMsg) tea.Cmd {
	if a.preview == nil || a.preview.events != m.events {
		return nil
	}
	a.preview.view.Add(m.event)
	return nextEvent(m.events)
}

func (a *App) onPreviewDone(m previewDoneMsg) {
	p := a.preview
	if p == nil || p.key != m.key {
		if m.reviewed != nil {
			m.reviewed.Close()
		}
		return
	}
	p.running = false
	if m.err != nil {
		p.view.Done("", m.err)
		return
	}
	p.reviewed = m.reviewed
	status := fmt.Sprintf("preview done in %s: %d changes", m.reviewed.Result.Elapsed.Round(100*time.Millisecond), p.view.Changes())
	if m.reviewed.Loc.Local != nil {
		status += " — A applies exactly this plan"
	} else {
		status += " — run by the operator: approve its commit from the list (A)"
	}
	p.view.Done(status, nil)
}

func (a *App) onApplyDone(m applyDoneMsg) {
	p := a.preview
	if p == nil || p.key != m.key {
		return
	}
	p.running, p.applying = false, false
	if m.err != nil {
		p.view.Done("", m.err)
		a.toastError("apply of " + m.key.Ref() + ": " + m.err.Error())
		return
	}
	p.view.Done("applied the reviewed plan in "+m.res.Elapsed.Round(100*time.Millisecond).String(), nil)
	a.toastInfo("applied the reviewed plan to " + m.key.Ref())
	p.reviewed.Close()
	p.reviewed = nil
}

func (a *App) previewKey(msg tea.KeyPressMsg) tea.Cmd {
	k, p := a.keys, a.preview
	if a.scrollKey(msg, p.view.Scroll, a.bodyHeight()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back, k.Quit):
		// Cancelling interrupts the CLI like Ctrl-C: it stops and releases
		// the stack's lock before exiting.
		p.cancel()
		if p.reviewed != nil {
			p.reviewed.Close()
		}
		a.preview = nil
	case key.Matches(msg, k.Approve):
		return a.approvePlan()
	}
	return nil
}

// approvePlan asks to apply exactly the reviewed plan.
func (a *App) approvePlan() tea.Cmd {
	p := a.preview
	switch {
	case p.running:
		a.toastError("the preview is still running")
		return nil
	case p.reviewed == nil:
		a.toastError("no reviewed plan to apply")
		return nil
	case p.reviewed.Loc.Local == nil:
		a.toastError(p.key.Ref() + " is run by the Pulumi operator: approve its proposed commit from the list instead")
		return nil
	}
	rv := p.reviewed
	return a.openCustom(&customConfirm{
		title: fmt.Sprintf("Apply the reviewed plan to %s (%d changes)", p.key.Ref(), p.view.Changes()),
		lines: []string{
			"runs pulumi up bound to the plan just shown (stack " + rv.Loc.Stack + ", backend " + rv.Loc.Backend + ")",
			"a program or state changed since the preview makes it fail: nothing outside the plan is applied",
		},
		run: func(reason string) tea.Cmd {
			p.applying = true
			p.view.Reset("apply of " + p.key.Ref())
			return a.startStream(func(ctx context.Context, onEvent func(pulumirun.Event)) tea.Msg {
				res, _, err := a.opts.Backend.Approve(ctx, rv, reason, onEvent)
				return applyDoneMsg{key: p.key, res: res, err: err}
			})
		},
	})
}
