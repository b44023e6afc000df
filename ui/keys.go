package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// onKey handles the keys that work everywhere, then hands the key to the
// input bar when one is open, else to the top screen.
func (a *App) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	switch {
	case key.Matches(msg, k.ForceQuit):
		return tea.Quit
	case key.Matches(msg, k.Redraw):
		return tea.ClearScreen
	}
	if a.pending != nil {
		a.holdKey(msg)
		return nil
	}
	if a.bar.open() {
		cmd, asked := a.bar.key(msg)
		switch asked := asked.(type) {
		case listFilterMsg:
			cmd = tea.Batch(cmd, a.broadcast(asked))
		case commandLineMsg:
			cmd = tea.Batch(cmd, a.runCommand(string(asked)))
		}
		// Filtering moves the cursor to another row.
		return tea.Batch(cmd, a.prefetch(a.list().m.Selected()))
	}
	return a.top().update(a, msg)
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

// wrapHint is the footer's word on the wrap key, first so that a narrow
// footer does not cut it: shown while lines wrap (to cut them again) or
// when the screen cut one; nothing when every line fits.
func (a *App) wrapHint(wrapping, cut bool) string {
	k := a.keys.Wrap.Help().Key
	switch {
	case wrapping:
		return a.hints(k, "cut long lines") + "  "
	case cut:
		return a.hints(k, "whole lines (… cut)") + "  "
	}
	return ""
}

// wrapHints is wrapHint as a footer hint that stays to the last.
func (a *App) wrapHints(wrapping, cut bool) []hint {
	k := a.keys.Wrap.Help().Key
	switch {
	case wrapping:
		return []hint{{key: k, desc: "cut long lines", keep: keepAlways}}
	case cut:
		return []hint{{key: k, desc: "whole lines (… cut)", keep: keepAlways}}
	}
	return nil
}
