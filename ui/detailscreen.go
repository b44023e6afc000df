package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
	"github.com/driftdeck/driftdeck/views/detail"
)

// detailScreen is one unit, kept current from the app's index whatever the
// list shows, its description re-read at most once a second, until it
// closes.
type detailScreen struct {
	ownContext
	m      *detail.Model
	height int
	reads  rereader
}

// detailOf opens the detail view of a unit on a tab.
type detailOf struct {
	unit *model.Unit
	tab  detail.Tab
}

func (o detailOf) open(a *App) tea.Cmd {
	u, tab := o.unit, o.tab
	if u == nil {
		return nil
	}
	s := &detailScreen{ownContext: newOwnContext(a), m: detail.New(a.theme, u)}
	s.m.ShowTab(tab)
	if av, ok := a.avail[u.Key]; ok {
		s.m.SetAvailability(av)
	}
	a.push(s)
	return tea.Batch(s.describeCmd(a), a.availCmd(u, nil, nil))
}

func (s *detailScreen) setSize(w, h int)         { s.m.SetSize(w, h); s.height = h }
func (s *detailScreen) setTheme(t *themes.Theme) { s.m.SetTheme(t) }

func (s *detailScreen) view(_ *App, now time.Time) string { return s.m.View(now) }

func (s *detailScreen) update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case unitsChangedMsg:
		if !msg.changed[s.m.Key()] {
			return nil
		}
		u := a.unit(s.m.Key())
		if u == nil {
			s.m.SetDetail(nil, errGone(s.m.Key()))
			return nil
		}
		s.m.SetUnit(u)
		return tea.Batch(s.describeCmd(a), a.availCmd(u, nil, nil))
	case wroteMsg:
		if msg.key == s.m.Key() { // its Event is news
			return s.describeCmd(a)
		}
	case describeMsg:
		if msg.from != s {
			return nil // another screen's, or one closed before its read returned
		}
		s.m.SetDetail(msg.detail, msg.err)
		// A failed read is tried again (at the reads' pace): a slow or
		// restarting API server must not leave the tabs without details.
		if s.reads.done() || (msg.err != nil && a.unit(s.m.Key()) != nil) {
			return s.describeCmd(a)
		}
	case availMsg:
		if msg.key == s.m.Key() {
			s.m.SetAvailability(msg.avail)
		}
	case tea.KeyPressMsg:
		return s.press(a, msg)
	}
	return nil
}

func (s *detailScreen) press(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k, d := a.keys, s.m
	if a.scrollKey(msg, d.Scroll, s.height) {
		return nil
	}
	if cmd, handled := a.actionKey(msg, s); handled {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Back, k.Quit):
		a.close(s)
	case key.Matches(msg, k.Help):
		a.push(newHelpScreen())
	case key.Matches(msg, k.Command):
		return a.startInput(modeCommand, "")
	case key.Matches(msg, k.NextTab):
		d.NextTab(1)
	case key.Matches(msg, k.PrevTab):
		d.NextTab(-1)
	case key.Matches(msg, k.Yaml):
		d.ShowTab(detail.YAML)
	case key.Matches(msg, k.Wrap):
		d.ToggleWrap()
	case key.Matches(msg, k.Logs):
		if !model.InfoOf(d.Key().Engine).HasLog {
			a.toastError(model.InfoOf(d.Key().Engine).Units + " have no log of their own: open one of the Applications they generate")
			return nil
		}
		return a.open(logsOf{d.Key()})
	}
	return nil
}

// describeCmd re-reads the unit, at most once a second; a change that
// arrives meanwhile is picked up when the read in flight returns.
func (s *detailScreen) describeCmd(a *App) tea.Cmd {
	k := s.m.Key()
	be, ctx := a.opts.Backend, s.ctx
	return s.reads.read(a.now(), time.Second, func() tea.Msg {
		d, err := be.Describe(ctx, k)
		return describeMsg{from: s, detail: d, err: err}
	})
}

func (s *detailScreen) keyHelp(a *App) string {
	k := a.keys
	// j/k are left to the help screen: the keys that open things need the room.
	// The keys that open things stay longer than the row's actions, which
	// leave from the right (a lists them all).
	hs := []hint{hintOf(k.Back, keepAlways), hintOf(k.NextTab, keepHigh), hintOf(k.Actions, keepHigh)}
	if model.InfoOf(s.m.Key().Engine).Review != model.NoReview {
		hs = append(hs, hintOf(k.Diff, keepHigh))
	}
	if logsWorthShowing(s.m.Unit()) {
		hs = append(hs, hintOf(k.Logs, keepHigh))
	}
	if model.InfoOf(s.m.Key().Engine).ResourceTree {
		hs = append(hs, hintOf(k.Resources, keepHigh))
	}
	hs = append(hs, a.actionHintsOf(s.m.Unit())...)
	return a.fitHints(append(append(a.wrapHints(s.m.Wrapping(), s.m.Cut()), hs...), hintOf(k.Help, keepAlways)))
}

// logsWorthShowing: the footer names the logs key for a Stack (its
// workspace pod) and a Flux unit (the controller's lines about it), and
// for an Application or a Terraform while it runs (its hook Jobs, its
// runner pod); the key works on them always, and the help lists it.
func logsWorthShowing(u *model.Unit) bool {
	if u == nil || !model.InfoOf(u.Key.Engine).HasLog {
		return false
	}
	switch u.Key.Engine {
	case model.EnginePulumi, model.EngineKustomization, model.EngineHelmRelease:
		return true
	}
	return u.Run == model.Running || u.Run == model.Stuck
}
