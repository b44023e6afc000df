package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
	diffview "github.com/driftdeck/driftdeck/views/diff"
)

// diffScreen is the diff of one Application, kept current: when the app is
// compared again (status.reconciledAt moves) the diff is computed again.
type diffScreen struct {
	unitKey  model.Key
	v        *diffview.Model
	compared time.Time // reconciledAt the shown diff belongs to
	revision string    // the app's sync revision when the diff was computed
	inflight bool
	stale    bool
}

// openDiff shows the diff of u.
func (a *App) openDiff(u *model.Unit) tea.Cmd {
	if u == nil {
		return nil
	}
	if u.Argo == nil {
		a.toastError("diffs are for Argo CD Applications; a Stack shows what would change in its preview")
		return nil
	}
	s := &diffScreen{unitKey: u.Key, v: diffview.New(a.theme), compared: u.Argo.ReconciledAt}
	a.push(s)
	return s.diffCmd(a)
}

func (s *diffScreen) setSize(w, h int)                { s.v.SetSize(w, h) }
func (s *diffScreen) setTheme(t *themes.Theme)        { s.v.SetTheme(t) }
func (s *diffScreen) view(_ *App, _ time.Time) string { return s.v.View() }

func (s *diffScreen) diffCmd(a *App) tea.Cmd {
	if s.inflight {
		s.stale = true
		return nil
	}
	s.inflight, s.stale = true, false
	be, ctx, k := a.opts.Backend, a.opts.Context, s.unitKey
	return func() tea.Msg {
		res, err := be.Diff(ctx, k)
		return diffMsg{key: k, result: res, err: err}
	}
}

func (s *diffScreen) update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case diffMsg:
		if msg.key != s.unitKey {
			return nil
		}
		s.inflight = false
		if msg.err != nil {
			s.v.SetError(msg.err)
		} else {
			s.v.SetReport(msg.result.Report, msg.result.Revision)
			s.v.SetSource(msg.result.Source)
			s.v.SetWarnings(msg.result.Warnings)
			s.revision = msg.result.SyncRevision
		}
		if s.stale {
			return s.diffCmd(a)
		}
	case unitsChangedMsg:
		// Computed again only when the app was compared again.
		u := a.unit(s.unitKey)
		if msg.changed[s.unitKey] && u != nil && u.Argo != nil && !u.Argo.ReconciledAt.Equal(s.compared) {
			s.compared = u.Argo.ReconciledAt
			return s.diffCmd(a)
		}
	case tea.KeyPressMsg:
		return s.press(a, msg)
	}
	return nil
}

func (s *diffScreen) press(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k, v := a.keys, s.v
	if a.scrollKey(msg, v.Scroll, v.Page()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back, k.Quit):
		a.close(s)
	case key.Matches(msg, k.NextObject):
		v.NextObject(1)
	case key.Matches(msg, k.PrevObject):
		v.NextObject(-1)
	case key.Matches(msg, k.SideBySide):
		v.ToggleSideBySide()
	case key.Matches(msg, k.Refresh):
		return s.diffCmd(a)
	case key.Matches(msg, k.Approve, k.Sync):
		return s.approve(a)
	}
	return nil
}

// approve asks to sync exactly what the diff shows: the sync is bound to
// the revision the diff was computed against and refused if the app moved on.
func (s *diffScreen) approve(a *App) tea.Cmd {
	if s.v.Report() == nil {
		a.toastError("nothing to approve yet: the diff is still being computed")
		return nil
	}
	u := a.unit(s.unitKey)
	if u == nil {
		a.toastError(errGone(s.unitKey).Error())
		return nil
	}
	return a.startRequest(actions.Request{Kind: actions.Approve, Key: s.unitKey, Revision: s.revision}, s)
}

func (s *diffScreen) keyHelp(a *App) string {
	k := a.keys
	return a.keyHints(bindings(k.Back, k.Down, k.Up, k.NextObject, k.PrevObject, k.SideBySide, k.Refresh, k.Approve))
}
