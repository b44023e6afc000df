package diff

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	engine "github.com/driftdeck/driftdeck/backend/diff"
)

// screen divides the height: one header row, the summary, a rule, the body,
// one footer row. Small screens drop the summary first.
type screen struct {
	summary, body int
}

func (m *Model) layout() screen {
	rest := m.height - 2 // header and footer
	if rest <= 0 {
		return screen{}
	}
	var s screen
	if len(m.objs) > 0 && rest >= 8 {
		s.summary = min(len(m.objs), max(2, rest/4))
		rest -= s.summary + 1 // and the rule below it
	}
	s.body = rest
	return s
}

// document is the index of the body: every row's place, without rendering
// any. A segment is the note on an approximate diff, the warnings, an object's banner, or one hunk (its
// header row, then its lines or side-by-side rows).
type document struct {
	segments    []segment
	objectStart []int // first row of each object (its banner)
	rows        int
	numWidth    int // digits of the largest line number
	colWidth    int // text width of one side-by-side column
	sourceRows  []string
	warningRows []string
}

type segKind uint8

const (
	segApproximate segKind = iota
	segSource
	segWarnings
	segBanner
	segHunk
)

type segment struct {
	kind  segKind
	start int // first row
	rows  int
	obj   int
	hunk  int
}

func (m *Model) buildDocument() document {
	d := document{numWidth: 1}
	for _, o := range m.objs {
		for _, h := range o.hunks {
			d.numWidth = max(d.numWidth, digits(h.OldStart+h.OldLines), digits(h.NewStart+h.NewLines))
		}
	}
	// number, space, marker on each side; " │ " between the sides.
	d.colWidth = max((m.width-3)/2-d.numWidth-2, 1)
	add := func(s segment) {
		s.start = d.rows
		d.segments = append(d.segments, s)
		d.rows += s.rows
	}
	if m.report != nil && m.report.Approximate {
		add(segment{kind: segApproximate, rows: 1})
	}
	// A source too long for the footer is said whole above the objects.
	if m.sourceInBody() {
		d.sourceRows = wrapWhole("from "+sanitizeWhole(m.source), m.width)
		add(segment{kind: segSource, rows: len(d.sourceRows)})
	}
	// Warnings wrap whole: their ends say what the diff left out.
	for _, w := range m.warnings {
		d.warningRows = append(d.warningRows, wrapWhole("! "+sanitizeWhole(w), m.width)...)
	}
	if len(d.warningRows) > 0 {
		add(segment{kind: segWarnings, rows: len(d.warningRows)})
	}
	for i, o := range m.objs {
		d.objectStart = append(d.objectStart, d.rows)
		add(segment{kind: segBanner, rows: 1, obj: i})
		if m.sideBySide && o.sideWidth != d.colWidth {
			o.side = make([][]engine.Row, len(o.hunks))
			for k, h := range o.hunks {
				o.side[k] = h.Rows(d.colWidth)
			}
			o.sideWidth = d.colWidth
		}
		room := m.unifiedRoom(d.numWidth)
		if m.wrapsUnified() && o.wrappedWidth != room {
			o.wrapped = make([][]wrappedRow, len(o.hunks))
			for k, h := range o.hunks {
				o.wrapped[k] = wrapLines(h.Lines, room)
			}
			o.wrappedWidth = room
		}
		for k, h := range o.hunks {
			n := len(h.Lines)
			switch {
			case m.sideBySide:
				n = len(o.side[k])
			case m.wrapsUnified():
				n = len(o.wrapped[k])
			}
			add(segment{kind: segHunk, rows: 1 + n, obj: i, hunk: k})
		}
	}
	return d
}

// segmentAt finds the segment holding row r.
func (d *document) segmentAt(r int) int {
	return sort.Search(len(d.segments), func(i int) bool { return d.segments[i].start > r }) - 1
}

// objectAt finds the object whose rows hold r (the first object for rows
// above every object, i.e. the warnings).
func (d *document) objectAt(r int) int {
	return max(sort.Search(len(d.objectStart), func(i int) bool { return d.objectStart[i] > r })-1, 0)
}

func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// fieldsText lists an object's changed field paths for the summary.
func fieldsText(o *engine.ObjectDiff) string {
	if len(o.Fields) == 0 {
		return ""
	}
	paths := make([]string, 0, min(len(o.Fields), 20))
	for _, f := range o.Fields[:min(len(o.Fields), 20)] {
		paths = append(paths, f.Path)
	}
	s := strings.Join(paths, ", ")
	if len(o.Fields) > 20 {
		s += ", …"
	}
	return s
}

// wrappedRow is one screen row of a wrapped unified line: piece of the
// text of line line of its hunk, cont on the rows after its first.
type wrappedRow struct {
	line  int
	piece string
	cont  bool
}

func (m *Model) wrapsUnified() bool { return m.wrap && !m.sideBySide }

// sourceInBody says whether the source is too long for the footer beside
// the mode and the position (counted at the last layout's length, with the
// widest numbers it has).
func (m *Model) sourceInBody() bool {
	if m.source == "" {
		return false
	}
	rows := max(m.doc.rows, len(m.objs)+1)
	position := fmt.Sprintf("side by side  rows %d-%d of %d  object %d/%d  ", rows, rows, rows, len(m.objs), len(m.objs))
	return len(position)+width(sanitize(m.source)) > m.width
}

// unifiedRoom is the text width of a unified line: the numbers, a space
// and the marker come first.
func (m *Model) unifiedRoom(numWidth int) int { return max(m.width-2*numWidth-3, 1) }

// wrapLines breaks each line into pieces of room cells, every character
// kept (YAML values have no spaces to break at that matter more than
// others).
func wrapLines(lines []engine.Line, room int) []wrappedRow {
	var out []wrappedRow
	for i, l := range lines {
		pieces := strings.Split(ansi.Hardwrap(sanitizeWhole(l.Text), room, true), "\n")
		for j, p := range pieces {
			out = append(out, wrappedRow{line: i, piece: p, cont: j > 0})
		}
	}
	return out
}

// wrapWhole wraps escaped text to the width at word boundaries, words
// longer than a line broken.
func wrapWhole(s string, width int) []string {
	return strings.Split(ansi.Wrap(s, max(width, 1), ""), "\n")
}
