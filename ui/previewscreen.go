package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/stackops"
	"github.com/driftdeck/driftdeck/themes"
	"github.com/driftdeck/driftdeck/views/preview"
)

// previewScreen streams a Pulumi preview (then, once approved, the apply of
// its plan) into the preview view as the engine's events arrive. It takes
// only the messages of its current run: a run cancelled by closing the
// screen, or replaced by the next one, ends on its own.
type previewScreen struct {
	unitKey  model.Key
	v        *preview.Model
	width    int
	height   int
	run      int
	cancel   context.CancelFunc
	running  bool
	applying bool
	reviewed *stackops.Reviewed
	// drift: the screen shows a drift check, which has nothing to approve.
	drift bool
	err   error // the last run's failure, shown whole
	howTo string
}

// streamEventMsg is one event of run.
type streamEventMsg struct {
	run    int
	events <-chan pulumirun.Event
	event  pulumirun.Event
}

type previewDoneMsg struct {
	run      int
	reviewed *stackops.Reviewed
	err      error
}

func (m previewDoneMsg) runID() int { return m.run }
func (m previewDoneMsg) release() {
	if m.reviewed != nil {
		m.reviewed.Close()
	}
}

type applyDoneMsg struct {
	run  int
	res  pulumirun.Result
	done string // in dry-run: what it would have done
	err  error
}

// previewOf starts a preview of a Stack.
type previewOf struct{ unit *model.Unit }

func (o previewOf) open(a *App) tea.Cmd {
	u := o.unit
	if u == nil {
		return nil
	}
	s := &previewScreen{unitKey: u.Key, v: preview.New(a.theme, "preview of "+u.Key.Ref())}
	a.push(s)
	k, be := u.Key, a.opts.Backend
	return s.startStream(a, func(ctx context.Context, run int, onEvent func(pulumirun.Event)) tea.Msg {
		rv, err := be.Preview(ctx, k, onEvent)
		return previewDoneMsg{run: run, reviewed: rv, err: err}
	})
}

// startStream runs one streamed Pulumi call under a new run id. Events go
// through a channel the screen reads one message at a time; the producer
// never waits on a screen that went away, since closing cancels the run.
func (s *previewScreen) startStream(a *App, call func(ctx context.Context, run int, onEvent func(pulumirun.Event)) tea.Msg) tea.Cmd {
	if s.cancel != nil {
		s.cancel()
	}
	run := a.nextID()
	ctx, cancel := context.WithCancel(a.opts.Context)
	events := make(chan pulumirun.Event, 256)
	s.run, s.cancel, s.running, s.err, s.howTo = run, cancel, true, nil, ""
	onEvent := func(e pulumirun.Event) {
		select {
		case events <- e:
		case <-ctx.Done():
		}
	}
	do := func() tea.Msg {
		defer close(events)
		msg := call(ctx, run, onEvent)
		if d, ok := msg.(previewDoneMsg); ok && ctx.Err() != nil && d.reviewed != nil {
			// Nobody will apply a plan whose screen was closed.
			d.reviewed.Close()
			d.reviewed = nil
			msg = d
		}
		return msg
	}
	return tea.Batch(do, nextEvent(run, events))
}

func nextEvent(run int, events <-chan pulumirun.Event) tea.Cmd {
	return func() tea.Msg {
		e, ok := <-events
		if !ok {
			return nil
		}
		return streamEventMsg{run: run, events: events, event: e}
	}
}

// close stops the run like Ctrl-C does (the CLI releases the stack's lock
// before exiting) and removes the saved plan.
func (s *previewScreen) close() {
	if s.cancel != nil {
		s.cancel()
	}
	if s.reviewed != nil {
		s.reviewed.Close()
		s.reviewed = nil
	}
}

// owns reports whether a run's messages are this screen's.
func (s *previewScreen) owns(run int) bool { return run == s.run }

func (s *previewScreen) setSize(w, h int) {
	s.width, s.height = w, h
	s.v.SetSize(w, h)
}

func (s *previewScreen) setTheme(t *themes.Theme) { s.v.SetTheme(t) }

func (s *previewScreen) update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case streamEventMsg:
		if !s.owns(msg.run) {
			return nil
		}
		s.v.Add(msg.event)
		return nextEvent(msg.run, msg.events)
	case previewDoneMsg:
		if s.owns(msg.run) {
			s.onPreviewDone(a, msg)
		}
	case applyDoneMsg:
		if s.owns(msg.run) {
			s.onApplyDone(a, msg)
		}
	case driftDoneMsg:
		if s.owns(msg.run) {
			s.onDriftDone(msg)
		}
	case tea.KeyPressMsg:
		return s.press(a, msg)
	}
	return nil
}

func (s *previewScreen) onPreviewDone(a *App, m previewDoneMsg) {
	s.running = false
	if m.err != nil {
		s.fail(m.err)
		return
	}
	s.reviewed = m.reviewed
	status := fmt.Sprintf("preview done in %s: %d changes", m.reviewed.Result.Elapsed.Round(100*time.Millisecond), s.v.Changes())
	switch {
	case s.canApprove() == "":
		status += " — A applies exactly this plan"
	case m.reviewed.Loc == nil || m.reviewed.Loc.Local == nil:
		status += " — run by the operator: approve its commit from the list (A)"
	}
	s.v.Done(status, nil)
}

func (s *previewScreen) onApplyDone(a *App, m applyDoneMsg) {
	s.running, s.applying = false, false
	if s.reviewed != nil {
		s.reviewed.Close()
		s.reviewed = nil
	}
	if m.err != nil {
		s.fail(m.err)
		a.toastError("apply of " + s.unitKey.Ref() + ": " + m.err.Error())
		return
	}
	if m.done != "" {
		s.v.Done(m.done, nil)
		a.toastInfo(s.unitKey.Ref() + ": " + m.done)
		return
	}
	s.v.Done("applied the reviewed plan in "+m.res.Elapsed.Round(100*time.Millisecond).String(), nil)
	a.toastInfo("applied the reviewed plan to " + s.unitKey.Ref())
}

// fail ends the run with its error; without the pulumi CLI the screen says
// how to get one.
func (s *previewScreen) fail(err error) {
	s.err = err
	s.v.Done("failed:", nil)
	if _, cliErr := findPulumiCLI(); cliErr != nil {
		s.howTo = "Previews run the pulumi CLI, and none was found. Get one: run `make tools` in the driftdeck source " +
			"(it builds pulumi into the user cache, where driftdeck finds it), or put pulumi on PATH, or set " +
			pulumirun.CLIEnv + "=/path/to/pulumi. The driftdeck-pulumi helper is looked for beside driftdeck, or at " +
			pulumirun.HelperEnv + "."
	}
}

// canApprove says why the shown preview cannot be applied now ("" when it can).
func (s *previewScreen) canApprove() string {
	switch {
	case s.drift:
		return "a drift check applies nothing: d previews what an up of the program would change"
	case s.running && s.applying:
		return "the apply is running"
	case s.running:
		return "the preview is still running: approve applies a finished, reviewed plan"
	case s.reviewed == nil || s.reviewed.PlanPath == "":
		return "no reviewed plan to apply: preview again (esc, then d)"
	case s.reviewed.Loc == nil || s.reviewed.Loc.Local == nil:
		return s.unitKey.Ref() + " is run by the Pulumi operator: approve its proposed commit from the list instead"
	}
	return ""
}

func (s *previewScreen) press(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	if a.scrollKey(msg, s.v.Scroll, s.height) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back, k.Quit) && s.running && s.applying:
		// Leaving would interrupt pulumi up half way.
		a.toastError("the apply of " + s.unitKey.Ref() + " runs until it ends; leaving now would interrupt it (ctrl+c quits driftdeck and interrupts it)")
	case key.Matches(msg, k.Back, k.Quit):
		a.close(s)
	case key.Matches(msg, k.Approve):
		if why := s.canApprove(); why != "" {
			a.toastError(why)
			return nil
		}
		if a.refusedReadOnly("apply of the reviewed plan") {
			return nil
		}
		return s.approve(a)
	}
	return nil
}

// approve asks to apply exactly the reviewed plan.
func (s *previewScreen) approve(a *App) tea.Cmd {
	rv, be := s.reviewed, a.opts.Backend
	return a.openCustom(&customConfirm{
		title: fmt.Sprintf("Apply the reviewed plan to %s (%d changes)", s.unitKey.Ref(), s.v.Changes()),
		lines: []string{
			"runs pulumi up bound to the plan just shown (stack " + rv.Loc.Stack + ", backend " + rv.Loc.Backend + ")",
			"a program or state changed since the preview makes it fail: nothing outside the plan is applied",
		},
		run: func(reason string) tea.Cmd {
			s.applying = true
			s.v.Reset("apply of " + s.unitKey.Ref())
			return s.startStream(a, func(ctx context.Context, run int, onEvent func(pulumirun.Event)) tea.Msg {
				res, done, err := approvePlan(ctx, be, rv, reason, onEvent)
				return applyDoneMsg{run: run, res: res, done: done, err: err}
			})
		},
	})
}

func (s *previewScreen) view(a *App, _ time.Time) string {
	if s.err == nil {
		s.v.SetSize(s.width, s.height)
		return s.v.View()
	}
	// The failure is the line the user needs: whole, wrapped, under the steps.
	text := s.err.Error()
	if s.howTo != "" {
		text += "\n\n" + s.howTo
	}
	tail := strings.Split(wrapANSI(text, s.width), "\n")
	tail = tail[:min(len(tail), max(s.height-3, 1))]
	s.v.SetSize(s.width, max(s.height-len(tail), 2))
	for i, l := range tail {
		tail[i] = a.theme.Bad.Render(l)
	}
	return s.v.View() + "\n" + strings.Join(tail, "\n")
}

func (s *previewScreen) keyHelp(a *App) string {
	k := a.keys
	bs := bindings(k.Back, k.Down, k.Up)
	if s.canApprove() == "" {
		bs = append(bs, k.Approve)
	}
	return a.keyHints(bs)
}
