package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/themes"
)

// Most of a frame is the previous frame again: the clock tick changes an age
// or two, a key moves the cursor over two rows. Measuring every line's width
// and styling the key hints again was most of what drawing such a frame cost
// (about two thirds at 120x40), so both are kept from frame to frame.

// fittedLines is the body of the last frame, as the screen gave it and as
// it was fitted to the window.
type fittedLines struct {
	width   int
	in, out []string
}

// fit makes s exactly h lines, none wider than w; a line the last frame had
// at the same place is not measured again.
func (f *fittedLines) fit(s string, h, w int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	if w != f.width {
		f.width, f.in, f.out = w, nil, nil
	}
	in, out := make([]string, len(lines)), make([]string, len(lines))
	for i, l := range lines {
		in[i] = l
		switch {
		case i < len(f.in) && f.in[i] == l:
			out[i] = f.out[i]
		case ansi.StringWidth(l) > w:
			out[i] = ansi.Truncate(l, w, "…")
		default:
			out[i] = l
		}
	}
	f.in, f.out = in, out
	for len(out) < h {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

// maxHintMemo bounds the drawn hints kept: a session shows a few dozen
// different footers, a long one does not grow the memo past this.
const maxHintMemo = 256

// hintMemo is the key hints already drawn, by their text, for one theme and
// window width.
type hintMemo struct {
	theme *themes.Theme
	width int
	drawn map[string]string
}

// get returns the hints drawn for pairs, drawing them with draw the first
// time.
func (m *hintMemo) get(theme *themes.Theme, width int, pairs []string, draw func() string) string {
	if m.theme != theme || m.width != width || len(m.drawn) >= maxHintMemo {
		m.theme, m.width, m.drawn = theme, width, map[string]string{}
	}
	k := strings.Join(pairs, "\x00")
	if s, ok := m.drawn[k]; ok {
		return s
	}
	s := draw()
	m.drawn[k] = s
	return s
}
