// Package wrapped turns text from outside (a cluster, a state backend, a
// log) into lines a screen can show whole: escaped with safetext, then
// wrapped at word boundaries to the width, long words broken.
package wrapped

import (
	"regexp"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/safetext"
)

// Lines escapes s (keeping its newlines) and wraps it to width cells.
// Empty text gives no lines.
func Lines(s string, width int) []string {
	s = strings.TrimRight(safetext.Block(s), "\n ")
	if s == "" {
		return nil
	}
	width = max(width, 1)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, wrapLine(l, width)...)
	}
	return out
}

// wrapLine breaks one line at spaces only (names like search-indexer stay
// whole, which a wrap at hyphens would split), keeping its indent; a word
// wider than the line is cut into pieces.
func wrapLine(l string, width int) []string {
	indent := len(l) - len(strings.TrimLeft(l, " "))
	if indent >= width/2 {
		indent = 0
	}
	pad := strings.Repeat(" ", indent)
	var out []string
	var cur strings.Builder
	curW := 0
	flush := func() {
		out = append(out, pad+cur.String())
		cur.Reset()
		curW = 0
	}
	room := width - indent
	for _, word := range strings.Fields(l) {
		w := ansi.StringWidth(word)
		if curW > 0 && curW+1+w > room {
			flush()
		}
		for w > room {
			piece := ansi.Truncate(word, room, "")
			word = strings.TrimPrefix(word, piece)
			cur.WriteString(piece)
			curW = room
			flush()
			w = ansi.StringWidth(word)
		}
		if w == 0 {
			continue
		}
		if curW > 0 {
			cur.WriteByte(' ')
			curW++
		}
		cur.WriteString(word)
		curW += w
	}
	if curW > 0 || len(out) == 0 {
		flush()
	}
	return out
}

// Field lays out a label and its value: the value wraps to the width,
// continuation lines indented under the value. The label is plain text of
// labelWidth cells or fewer; style renders it.
func Field(label string, labelWidth int, value string, width int, style lipgloss.Style) []string {
	lines := Lines(value, width-labelWidth)
	if len(lines) == 0 {
		lines = []string{""}
	}
	indent := strings.Repeat(" ", labelWidth)
	out := make([]string, len(lines))
	for i, l := range lines {
		if i == 0 {
			out[i] = style.Render(label+strings.Repeat(" ", max(labelWidth-ansi.StringWidth(label), 0))) + l
		} else {
			out[i] = indent + l
		}
	}
	return out
}

// Hang fits one rendered line (styles kept) to width: a line that fits is
// returned as is; a longer one is wrapped, its continuation lines indented
// by hang cells so they read as part of it. Each piece carries the styles
// open where it starts and closes them where it ends, so a colour never
// leaks onto the next line nor is lost on it.
// A width of 0 or less is no width yet: the line is returned as is.
func Hang(line string, width, hang int) []string {
	if width <= 0 || ansi.StringWidth(line) <= width {
		return []string{line}
	}
	if hang >= width/2 {
		hang = min(2, width/2)
	}
	pieces := strings.Split(ansi.Wrap(line, width-hang, ""), "\n")
	pad := strings.Repeat(" ", hang)
	open := ""
	for i, p := range pieces {
		next := open + p
		open = openStyles(open, p)
		if open != "" {
			next += "\x1b[m"
		}
		if i > 0 {
			next = pad + next
		}
		pieces[i] = next
	}
	return pieces
}

// sgr matches one Select Graphic Rendition sequence: the only escape
// sequences a rendered line holds, text from outside being escaped.
var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// openStyles is the SGR sequences still in force after s, given those in
// force before it: everything since the last reset.
func openStyles(before, s string) string {
	open := before
	for _, seq := range sgr.FindAllString(s, -1) {
		if seq == "\x1b[m" || seq == "\x1b[0m" {
			open = ""
		} else {
			open += seq
		}
	}
	return open
}
