package list

import (
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
)

// View renders the header row and the visible rows, exactly height lines.
func (m *Model) View(now time.Time) string {
	cols, widths := layout(m.width, m.nameWidth+m.treeIndent(), m.multiContext)
	var b strings.Builder
	b.Grow((m.width + 16) * m.height)
	b.WriteString(m.header(cols, widths))
	page := m.Page()
	end := min(m.offset+page, len(m.shown))
	lines := 1
	if m.drawing == nil {
		m.drawn, m.drawing = map[model.Key]drawnRow{}, map[model.Key]drawnRow{}
	}
	clear(m.drawing)
	for i := m.offset; i < end; i++ {
		b.WriteByte('\n')
		b.WriteString(m.row(m.shown[i], i == m.cursor, cols, widths, now))
		lines++
	}
	m.drawn, m.drawing = m.drawing, m.drawn
	if len(m.shown) == 0 {
		b.WriteByte('\n')
		b.WriteString(m.theme.Dim.Render(m.emptyText()))
		lines++
	}
	status := m.statusLines()
	if len(status) > 0 {
		status = append([]string{m.theme.Dim.Render(strings.Repeat("─", m.width))}, status...)
	}
	for ; lines < m.height-len(status); lines++ {
		b.WriteByte('\n')
	}
	for _, l := range status {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	return b.String()
}

func (m *Model) emptyText() string {
	switch {
	case len(m.all) == 0:
		return "  no units yet: waiting for the cluster, or none of Argo CD / the Pulumi operator is installed"
	case m.filter.Active() || m.scope != (Scope{}):
		return "  nothing matches the filter (esc clears it)"
	}
	return ""
}

func (m *Model) header(cols, widths []int) string {
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", markerWidth))
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(pad(columns[c].title, widths[i]))
	}
	return m.theme.TableHeader.Render(ansi.Truncate(b.String(), m.width, ""))
}

// row returns the unit's line, drawn again only when something it shows
// changed.
func (m *Model) row(u *model.Unit, selected bool, cols, widths []int, now time.Time) string {
	rc := m.rows[u.Key]
	in := drawInputs{unit: u, theme: m.theme, width: m.width, nameWidth: m.nameWidth + m.treeIndent(), multiContext: m.multiContext,
		selected: selected, marked: m.marked[u.Key], lit: rc.highlight.After(now),
		age: columns[colAge].cell(u, now), automation: columns[colAutomation].cell(u, now)}
	in.treePrefix, in.summary = m.treePrefix(u)
	d, ok := m.drawn[u.Key]
	if !ok || d.from != in {
		d = drawnRow{text: m.draw(rc, in, cols, widths, now), from: in}
	}
	m.drawing[u.Key] = d
	return d.text
}

// The marker cells in front of each row are glyphs, so that the cursor row
// and the marked rows show in every theme and on a terminal without colour
// or video attributes (TERM=dumb): the cursor, the mark, a space.
const (
	markerWidth = 3
	cursorGlyph = ">"
	markGlyph   = "✓"
)

func marker(selected, marked bool) string {
	c, mk := " ", " "
	if selected {
		c = cursorGlyph
	}
	if marked {
		mk = markGlyph
	}
	return c + mk + " "
}

func (m *Model) draw(rc *rowCache, in drawInputs, cols, widths []int, now time.Time) string {
	u, selected, lit := in.unit, in.selected, in.lit
	marker := marker(selected, in.marked)
	if selected {
		// The selected row is one reverse-video bar: cells are plain so that
		// their colours do not punch holes in it.
		var b strings.Builder
		b.WriteString(marker)
		for i, c := range cols {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(pad(cellText(rc, in, c), widths[i]))
		}
		return m.theme.Selected.Render(pad(b.String(), m.width))
	}
	var b strings.Builder
	if in.marked {
		b.WriteString(m.theme.Marked.Render(marker))
	} else {
		b.WriteString(marker)
	}
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		text := pad(cellText(rc, in, c), widths[i])
		var st lipgloss.Style
		switch {
		case lit && rc.changed[c]:
			st = m.theme.Changed
		case columns[c].style != nil:
			st = columns[c].style(m.theme, u, now)
		default:
			b.WriteString(text)
			continue
		}
		b.WriteString(st.Render(text))
	}
	return b.String()
}

func cellText(rc *rowCache, in drawInputs, c int) string {
	switch c {
	case colAge:
		return in.age
	case colAutomation:
		return in.automation
	case colName:
		return in.treePrefix + rc.cells[c]
	case colReason:
		if in.summary != "" && rc.cells[c] != "" {
			return in.summary + " · " + rc.cells[c]
		}
		if in.summary != "" {
			return in.summary
		}
	}
	return rc.cells[c]
}

// pad fits s into exactly w cells: truncated with an ellipsis, or padded.
func pad(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := ansi.StringWidth(s)
	if n > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-n)
}
