package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// A confirmation's write block scrolls between its title and its controls,
// which stay on screen: what is confirmed can be read to its last line at
// any terminal size, and the buttons never leave the screen.

// layoutConfirm fits a confirmation into room lines: the title, the part of
// the body the scroll offset shows and where that is, then the controls.
func (d *dialog) layoutConfirm(a *App, title, body, controls []string, room int) []string {
	d.bodyLines = len(body)
	fixed := len(title) + len(controls)
	if fixed+len(body) <= room {
		d.scroll, d.page = 0, len(body)
		return concatLines(title, body, controls)
	}
	d.page = max(room-fixed-1, 1) // one line says where the view is
	d.scroll = min(max(d.scroll, 0), len(body)-d.page)
	shown := body[d.scroll : d.scroll+d.page]
	where := a.theme.Dim.Render(fmt.Sprintf("lines %d-%d of %d · %s/%s scroll",
		d.scroll+1, d.scroll+d.page, len(body), a.keys.PageDown.Help().Key, a.keys.PageUp.Help().Key))
	return concatLines(title, shown, []string{where}, controls)
}

func concatLines(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// scrollable tells whether the body is longer than the room it has.
func (d *dialog) scrollable() bool { return d.page > 0 && d.bodyLines > d.page }

// scrollKey scrolls the body: page keys always (but for those a field
// edits its text with), line, top and bottom keys where they move nothing
// else, on the buttons, a refusal or a bulk report. It reports whether the key scrolled.
func (d *dialog) scrollKey(a *App, msg tea.KeyPressMsg) bool {
	k := a.keys
	field := d.focused()
	if d.refused() {
		field = nil // a refusal shows no field
	}
	if field != nil && editsText(field, msg) {
		return false
	}
	lines := field == nil && (d.refused() || d.kind == dlgReport || d.focus == d.buttons())
	step := 0
	switch {
	case key.Matches(msg, k.PageDown):
		step = max(d.page-1, 1)
	case key.Matches(msg, k.PageUp):
		step = -max(d.page-1, 1)
	case lines && key.Matches(msg, k.Down):
		step = 1
	case lines && key.Matches(msg, k.Up):
		step = -1
	case lines && key.Matches(msg, k.Top):
		step = -d.bodyLines
	case lines && key.Matches(msg, k.Bottom):
		step = d.bodyLines
	default:
		return false
	}
	d.scroll = min(max(d.scroll+step, 0), max(d.bodyLines-d.page, 0))
	return true
}

// editsText tells whether a text field takes the key itself: ctrl+u,
// ctrl+b, ctrl+f, home and end edit or move in the line typed.
func editsText(in *textinput.Model, msg tea.KeyPressMsg) bool {
	m := in.KeyMap
	return key.Matches(msg, m.CharacterForward, m.CharacterBackward, m.WordForward, m.WordBackward,
		m.DeleteWordBackward, m.DeleteWordForward, m.DeleteAfterCursor, m.DeleteBeforeCursor,
		m.DeleteCharacterBackward, m.DeleteCharacterForward, m.LineStart, m.LineEnd, m.Paste,
		m.AcceptSuggestion, m.NextSuggestion, m.PrevSuggestion)
}

// fitRoom cuts lines to room, keeping the last (the buttons): for a
// terminal too small even for the title and the controls.
func fitRoom(lines []string, room int, more string) []string {
	if len(lines) <= room {
		return lines
	}
	if room < 3 {
		return lines[len(lines)-room:]
	}
	return append(append(lines[:room-2:room-2], more), lines[len(lines)-1])
}

// truncateAll keeps every line to the width, so that none wraps inside the
// box and pushes its bottom border off the screen.
func truncateAll(lines []string, width int) []string {
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, width, "…")
	}
	return lines
}
