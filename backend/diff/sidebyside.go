package diff

import (
	"strings"

	"github.com/clipperhouse/displaywidth"
)

// Row is one row of a two-column view: the old line on the left, the new on
// the right. Deleted and inserted lines of one change are paired up; where one
// side has more, the other gets empty cells.
type Row struct {
	Old, New Cell
}

// Cell is one side of a Row; an empty cell is the zero Cell.
type Cell struct {
	Op Op // Equal, or Delete on the old side and Insert on the new
	// Line is the 1-based line number; 0 for an empty cell.
	Line int
	// Text fits the column width given to Rows; tabs are expanded.
	Text string
	// Continued marks the second and later pieces of a wrapped line.
	Continued bool
}

// Empty reports a cell with no line, facing a line on the other side.
func (c Cell) Empty() bool { return c.Line == 0 }

// Rows aligns the hunk's lines in two columns. A positive width wraps longer
// lines into continuation rows, measured in terminal cells; the other side of
// those rows is empty.
func (h Hunk) Rows(width int) []Row {
	rows := make([]Row, 0, len(h.Lines))
	lines := h.Lines
	for len(lines) > 0 {
		if lines[0].Op == Equal {
			l := lines[0]
			rows = appendRow(rows, cellOf(l, Equal, l.Old), cellOf(l, Equal, l.New), width)
			lines = lines[1:]
			continue
		}
		n := nextEqual(lines)
		var dels, ins []Line
		for _, l := range lines[:n] {
			if l.Op == Delete {
				dels = append(dels, l)
			} else {
				ins = append(ins, l)
			}
		}
		for k := 0; k < max(len(dels), len(ins)); k++ {
			var left, right Cell
			if k < len(dels) {
				left = cellOf(dels[k], Delete, dels[k].Old)
			}
			if k < len(ins) {
				right = cellOf(ins[k], Insert, ins[k].New)
			}
			rows = appendRow(rows, left, right, width)
		}
		lines = lines[n:]
	}
	return rows
}

func nextEqual(lines []Line) int {
	i := 0
	for i < len(lines) && lines[i].Op != Equal {
		i++
	}
	return i
}

func cellOf(l Line, op Op, number int) Cell {
	return Cell{Op: op, Line: number, Text: expandTabs(l.Text)}
}

// appendRow adds the pair, wrapped to width; continuation pieces keep the
// line number and op so the view can style them alike.
func appendRow(rows []Row, left, right Cell, width int) []Row {
	lp, rp := wrap(left.Text, width), wrap(right.Text, width)
	for k := 0; k < max(len(lp), len(rp)); k++ {
		var row Row
		if k < len(lp) {
			row.Old = left
			row.Old.Text, row.Old.Continued = lp[k], k > 0
		}
		if k < len(rp) {
			row.New = right
			row.New.Text, row.New.Continued = rp[k], k > 0
		}
		rows = append(rows, row)
	}
	return rows
}

// wrap cuts s into pieces of at most width cells, never inside a grapheme;
// a grapheme wider than width gets a piece of its own.
func wrap(s string, width int) []string {
	if width <= 0 || displaywidth.String(s) <= width {
		return []string{s}
	}
	var pieces []string
	var b strings.Builder
	used := 0
	g := displaywidth.StringGraphemes(s)
	for g.Next() {
		w := g.Width()
		if used > 0 && used+w > width {
			pieces = append(pieces, b.String())
			b.Reset()
			used = 0
		}
		b.WriteString(g.Value())
		used += w
	}
	return append(pieces, b.String())
}

const tabStop = 8

func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	g := displaywidth.StringGraphemes(s)
	for g.Next() {
		if g.Value() == "\t" {
			pad := tabStop - col%tabStop
			b.WriteString(strings.Repeat(" ", pad))
			col += pad
			continue
		}
		b.WriteString(g.Value())
		col += g.Width()
	}
	return b.String()
}
