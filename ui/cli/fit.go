package cli

import (
	"io"
	"os"
	"strings"

	"github.com/clipperhouse/displaywidth"
	"golang.org/x/term"
)

// columnGap is the space between two table columns.
const columnGap = 2

// fallbackWidth is assumed for a terminal that does not say its size.
const fallbackWidth = 80

// terminalWidth is stdout's width in columns when stdout is a terminal (a
// table fits it then), or 0 when it is not (a pipe, a file: nothing is cut).
func (g *globals) terminalWidth() int {
	if !g.outIsTerminal() {
		return 0
	}
	w, _, err := term.GetSize(int(g.out.(*os.File).Fd()))
	if err != nil || w <= 0 {
		return fallbackWidth
	}
	return w
}

// writeColumns writes rows (the first is the header) as aligned columns,
// measured in terminal cells. With width > 0 cells are cut with … so that
// every row fits width: the last column (the reason) gives way first, down
// to its header's width, then the widest of the others but column name, one
// cell at a time, and name, what the row is about, last. A header is never
// cut.
func writeColumns(w io.Writer, rows [][]string, name, width int) error {
	widths, floors := columnWidths(rows)
	if width > 0 {
		shrink(widths, floors, name, width)
	}
	var b strings.Builder
	for _, row := range rows {
		for i, cell := range row {
			cell = cut(cell, widths[i])
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-displaywidth.String(cell)+columnGap))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// columnWidths is each column's widest cell and its header's width.
func columnWidths(rows [][]string) (widths, floors []int) {
	widths = make([]int, len(rows[0]))
	floors = make([]int, len(rows[0]))
	for i, head := range rows[0] {
		floors[i] = displaywidth.String(head)
	}
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], displaywidth.String(cell))
		}
	}
	return widths, floors
}

// shrink narrows widths until the row fits width, none below its floor:
// the last column first, then the widest others, column name last.
func shrink(widths, floors []int, name, width int) {
	excess := columnGap*(len(widths)-1) - width
	for _, w := range widths {
		excess += w
	}
	last := len(widths) - 1
	take := min(max(excess, 0), widths[last]-floors[last])
	widths[last] -= take
	excess -= take
	for ; excess > 0; excess-- {
		i := widestAboveFloor(widths[:last], floors, name)
		if i < 0 && widths[name] > floors[name] {
			i = name
		}
		if i < 0 {
			return // every column at its header's width: the row wraps
		}
		widths[i]--
	}
}

// widestAboveFloor is the widest column that may still give a cell, but
// skip; -1 when none may.
func widestAboveFloor(widths, floors []int, skip int) int {
	widest := -1
	for i, w := range widths {
		if i != skip && w > floors[i] && (widest < 0 || w > widths[widest]) {
			widest = i
		}
	}
	return widest
}

// cut shortens s to at most width cells, ending it with … when it was
// longer; it never splits a grapheme.
func cut(s string, width int) string {
	if displaywidth.String(s) <= width {
		return s
	}
	var b strings.Builder
	used := 0
	g := displaywidth.StringGraphemes(s)
	for g.Next() {
		if used+g.Width() > width-1 {
			break
		}
		b.WriteString(g.Value())
		used += g.Width()
	}
	return b.String() + "…"
}
