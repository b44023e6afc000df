package diff

import (
	"sort"
	"strings"

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
}

type segKind uint8

const (
	segApproximate segKind = iota
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
	if len(m.warnings) > 0 {
		add(segment{kind: segWarnings, rows: len(m.warnings)})
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
		for k, h := range o.hunks {
			n := len(h.Lines)
			if m.sideBySide {
				n = len(o.side[k])
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
