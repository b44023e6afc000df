package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	diffview "github.com/driftdeck/driftdeck/views/diff"
)

// diffScreen is the diff of one Application, kept current: when the app is
// compared again (status.reconciledAt moves) the diff is computed again.
type diffScreen struct {
	key      model.Key
	view     *diffview.Model
	compared time.Time // reconciledAt the shown diff belongs to
	revision string    // the app's sync revision when the diff was computed
	inflight bool
	stale    bool
}

// openDiff shows the diff of the current unit.
func (a *App) openDiff() tea.Cmd {
	u := a.current()
	if u == nil {
		return nil
	}
	if u.Argo == nil {
		a.toastError("diffs are for Argo CD Applications; a Stack shows what would change in its preview")
		return nil
	}
	a.diff = &diffScreen{key: u.Key, view: diffview.New(a.theme), compared: u.Argo.ReconciledAt}
	a.layout()
	return a.diffCmd()
}

func (a *App) diffCmd() tea.Cmd {
	d := a.diff
	if d.inflight {
		d.stale = true
		return nil
	}
	d.inflight, d.stale = true, false
	be, ctx, k := a.opts.Backend, a.opts.Context, d.key
	return func() tea.Msg {
		res, err := be.Diff(ctx, k)
		return diffMsg{key: k, result: res, err: err}
	}
}

func (a *App) onDiff(m diffMsg) tea.Cmd {
	d := a.diff
	if d == nil || d.key != m.key {
		return nil
	}
	d.inflight = false
	if m.err != nil {
		d.view.SetError(m.err)
	} else {
		d.view.SetReport(m.result.Report, m.result.Revision)
		d.view.SetSource(m.result.Source)
		d.view.SetWarnings(m.result.Warnings)
		d.revision = m.result.SyncRevision
	}
	if d.stale {
		return a.diffCmd()
	}
	return nil
}

// diffOnChange recomputes the diff when the app was compared again.
func (a *App) diffOnChange(changed map[model.Key]bool) tea.Cmd {
	d := a.diff
	if d == nil || !changed[d.key] {
		return nil
	}
	for _, u := range a.list.Shown() {
		if u.Key == d.key && u.Argo != nil && !u.Argo.ReconciledAt.Equal(d.compared) {
			d.compared = u.Argo.ReconciledAt
			return a.diffCmd()
		}
	}
	return nil
}

func (a *App) diffKey(msg tea.KeyPressMsg) tea.Cmd {
	k, v := a.keys, a.diff.view
	if a.scrollKey(msg, v.Scroll, v.Page()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back, k.Quit):
		a.diff = nil
	case key.Matches(msg, k.NextObject):
		v.NextObject(1)
	case key.Matches(msg, k.PrevObject):
		v.NextObject(-1)
	case key.Matches(msg, k.SideBySide):
		v.ToggleSideBySide()
	case key.Matches(msg, k.Refresh):
		return a.diffCmd()
	case key.Matches(msg, k.Approve, k.Sync):
		return a.approveDiff()
	}
	return nil
}

// approveDiff asks to sync exactly what the diff shows: the sync is bound to
// the revision the diff was computed against and refused if the app moved on.
func (a *App) approveDiff() tea.Cmd {
	d := a.diff
	if d.view.Report() == nil {
		a.toastError("nothing to approve yet: the diff is still being computed")
		return nil
	}
	var u *model.Unit
	for _, x := range a.list.Shown() {
		if x.Key == d.key {
			u = x
		}
	}
	if u == nil {
		a.toastError("the app is no longer shown")
		return nil
	}
	a.dialog = a.newDialog(dlgConfirm, actions.Approve, []*model.Unit{u})
	a.dialog.req = actions.Request{Kind: actions.Approve, Key: d.key, Revision: d.revision}
	return tea.Batch(a.dialog.setFocus(0), a.requestPlan())
}
