package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/views/detail"
	"github.com/driftdeck/driftdeck/views/list"
)

func (a *App) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	switch {
	case key.Matches(msg, k.ForceQuit):
		return tea.Quit
	case key.Matches(msg, k.Redraw):
		return tea.ClearScreen
	}
	if a.dialog != nil {
		return a.dialogKey(msg)
	}
	if a.mode != modeNormal {
		return a.inputKey(msg)
	}
	if a.help {
		if key.Matches(msg, k.Back, k.Quit, k.Help) {
			a.help = false
		}
		return nil
	}
	if a.diff != nil {
		return a.diffKey(msg)
	}
	if a.preview != nil {
		return a.previewKey(msg)
	}
	if key.Matches(msg, k.Diff) {
		if u := a.current(); u != nil && u.Key.Engine == model.EnginePulumi {
			return a.openPreview()
		}
		return a.openDiff()
	}
	if key.Matches(msg, k.Unlock) {
		return a.startUnlock()
	}
	if cmd, handled := a.actionKey(msg); handled {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Help):
		a.help = true
		return nil
	case key.Matches(msg, k.Command):
		return a.startInput(modeCommand, "")
	}
	if a.detail != nil {
		return a.detailKey(msg)
	}
	return a.listKey(msg)
}

// actionKey starts an action from the list or the detail view.
func (a *App) actionKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := a.keys
	bindings := []struct {
		b    key.Binding
		kind actions.Kind
	}{
		{k.Sync, actions.Sync}, {k.Approve, actions.Approve}, {k.Refresh, actions.Refresh},
		{k.HardRefresh, actions.HardRefresh}, {k.Terminate, actions.Terminate}, {k.Pause, actions.Pause},
		{k.Resume, actions.Resume}, {k.Retry, actions.Retry}, {k.ConfirmPrune, actions.ConfirmPrune},
		{k.Rollback, actions.Rollback},
	}
	for _, b := range bindings {
		if key.Matches(msg, b.b) {
			return a.startAction(b.kind), true
		}
	}
	switch {
	case key.Matches(msg, k.Actions):
		return a.openActionMenu(), true
	case key.Matches(msg, k.Freeze):
		return a.startBulk(actions.Pause), true
	case key.Matches(msg, k.Thaw):
		return a.startBulk(actions.Resume), true
	}
	return nil, false
}

// scrollKey moves a view that scrolls by lines; it reports whether the key
// was a movement key.
func (a *App) scrollKey(msg tea.KeyPressMsg, scroll func(int), page int) bool {
	k := a.keys
	switch {
	case key.Matches(msg, k.Up):
		scroll(-1)
	case key.Matches(msg, k.Down):
		scroll(1)
	case key.Matches(msg, k.PageUp):
		scroll(-page)
	case key.Matches(msg, k.PageDown):
		scroll(page)
	case key.Matches(msg, k.Top):
		scroll(-1 << 30)
	case key.Matches(msg, k.Bottom):
		scroll(1 << 30)
	default:
		return false
	}
	return true
}

func (a *App) detailKey(msg tea.KeyPressMsg) tea.Cmd {
	k, d := a.keys, a.detail
	if a.scrollKey(msg, d.Scroll, a.bodyHeight()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back, k.Quit):
		a.detail = nil
	case key.Matches(msg, k.NextTab):
		d.NextTab(1)
	case key.Matches(msg, k.PrevTab):
		d.NextTab(-1)
	case key.Matches(msg, k.Yaml):
		d.ShowTab(detail.YAML)
	}
	return nil
}

func (a *App) listKey(msg tea.KeyPressMsg) tea.Cmd {
	k, l := a.keys, a.list
	if a.scrollKey(msg, l.Move, l.Page()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Open):
		return a.openDetail()
	case key.Matches(msg, k.Yaml):
		cmd := a.openDetail()
		if a.detail != nil {
			a.detail.ShowTab(detail.YAML)
		}
		return cmd
	case key.Matches(msg, k.Filter):
		return a.startInput(modeFilter, l.Filter().Text)
	case key.Matches(msg, k.Mark):
		l.ToggleMark()
	case key.Matches(msg, k.MarkAll):
		l.MarkShown()
	case key.Matches(msg, k.Sort):
		l.SetSort((l.Sort() + 1) % (list.ByAge + 1))
		a.toastInfo("sorted by " + l.Sort().String())
	case key.Matches(msg, k.Back):
		a.clearOneLayer()
	case key.Matches(msg, k.Quit):
		return tea.Quit
	}
	return nil
}

// clearOneLayer undoes the most recent narrowing: marks, then the filter,
// then the scope.
func (a *App) clearOneLayer() {
	l := a.list
	switch {
	case len(l.Marked()) > 0:
		l.ClearMarks()
	case l.Filter().Active():
		l.SetFilter("")
	case l.Scope() != (list.Scope{}):
		l.SetScope(list.Scope{})
	}
}
