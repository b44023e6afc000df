package diff

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	engine "github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// View renders exactly height lines, none wider than width.
func (m *Model) View() string {
	if m.height <= 0 {
		return ""
	}
	s := m.layout()
	m.cut = false
	lines := make([]string, 0, m.height)
	lines = append(lines, m.fit(m.header()))
	switch {
	case m.err != "":
		// Wrapped whole: an error's end often says what to do.
		for _, l := range wrapWhole("cannot compute the diff: "+sanitize(m.err), m.width) {
			lines = append(lines, m.fit(m.theme.Bad.Render(l)))
		}
	case m.report == nil:
		lines = append(lines, m.fit(m.theme.Dim.Render("computing the diff…")))
	case len(m.objs) == 0 && len(m.warnings) == 0:
		lines = append(lines, m.fit(m.theme.Good.Render("no changes: the live objects match the desired state")))
	default:
		lines = m.summary(lines, s.summary)
		if s.summary > 0 {
			lines = append(lines, m.theme.Dim.Render(strings.Repeat("─", m.width)))
		}
		lines = m.body(lines, s.body)
	}
	for len(lines) < m.height-1 {
		lines = append(lines, "")
	}
	if m.height > 1 {
		lines = append(lines[:m.height-1], m.fit(m.footer()))
	}
	return strings.Join(lines[:m.height], "\n")
}

// fit cuts a styled line to the width.
func (m *Model) fit(s string) string {
	if ansi.StringWidth(s) <= m.width {
		return s
	}
	return ansi.Truncate(s, m.width, "…")
}

func (m *Model) header() string {
	t := m.theme
	var b strings.Builder
	b.WriteString(t.Title.Render("Diff"))
	if m.revision != "" {
		b.WriteString(t.Dim.Render("  revision ") + t.Bold.Render(shortRevision(m.revision)))
	}
	r := m.report
	if r == nil {
		return b.String()
	}
	// First, so that a narrow screen never cuts it off.
	if r.Approximate {
		b.WriteString("  " + t.Warn.Render("approximate"))
	}
	b.WriteString("  " + t.DiffAdd.Render(fmt.Sprintf("%d added", r.Added)) + t.Dim.Render(", "))
	b.WriteString(t.Warn.Render(fmt.Sprintf("%d modified", r.Modified)) + t.Dim.Render(", "))
	b.WriteString(t.DiffDel.Render(fmt.Sprintf("%d removed", r.Removed)) + t.Dim.Render(", "))
	b.WriteString(t.Dim.Render(fmt.Sprintf("%d unchanged", r.Unchanged)))
	b.WriteString("  " + t.DiffAdd.Render(fmt.Sprintf("+%d", r.Inserted)) + " " + t.DiffDel.Render(fmt.Sprintf("-%d", r.Deleted)))
	return b.String()
}

// shortRevision shortens a commit hash (or each of a comma-separated list)
// to 12 characters; other revisions are shown whole.
func shortRevision(rev string) string {
	parts := strings.Split(rev, ",")
	for i, p := range parts {
		if len(p) == 40 && strings.Trim(p, "0123456789abcdef") == "" {
			parts[i] = p[:12]
		}
	}
	return sanitize(strings.Join(parts, ","))
}

func (m *Model) footer() string {
	mode := "unified"
	if m.sideBySide {
		mode = "side by side"
	}
	pos := ""
	if m.doc.rows > 0 {
		last := min(m.offset+m.layout().body, m.doc.rows)
		pos = fmt.Sprintf("  rows %d-%d of %d", m.offset+1, last, m.doc.rows)
	}
	if cur, _ := m.current(); cur >= 0 {
		pos += fmt.Sprintf("  object %d/%d", cur+1, len(m.objs))
	}
	if m.source != "" && !m.sourceInBody() {
		pos += "  " + sanitize(m.source)
	}
	return m.theme.FooterDesc.Render(mode + pos)
}

// summary renders the rows of the object list around the current object.
func (m *Model) summary(lines []string, rows int) []string {
	if rows == 0 {
		return lines
	}
	cur, _ := m.current()
	if cur < m.sumOffset {
		m.sumOffset = cur
	}
	if cur >= m.sumOffset+rows {
		m.sumOffset = cur - rows + 1
	}
	m.sumOffset = min(m.sumOffset, max(len(m.objs)-rows, 0))
	nameW := 0
	for _, o := range m.objs[m.sumOffset:min(m.sumOffset+rows, len(m.objs))] {
		nameW = max(nameW, ansi.StringWidth(objectName(o.d)))
	}
	nameW = min(nameW, max(m.width/2, 10))
	for i := m.sumOffset; i < min(m.sumOffset+rows, len(m.objs)); i++ {
		lines = append(lines, m.summaryRow(m.objs[i], i == cur, nameW))
	}
	return lines
}

func (m *Model) summaryRow(o *objectView, selected bool, nameW int) string {
	sym, st := changeMark(m, o.d.Change)
	counts := fmt.Sprintf("+%d -%d", o.d.Text.Inserted, o.d.Text.Deleted)
	rest := cut(pad(objectName(o.d), nameW)+"  "+pad(o.d.Change.String(), 8)+" "+pad(counts, 13)+" "+sanitize(o.fieldsText), max(m.width-3, 0))
	rest = strings.TrimRight(rest, " ")
	if selected {
		// The cursor glyph keeps the row told apart without colour (TERM=dumb).
		return m.theme.Selected.Render(pad(">"+sym+" "+rest, m.width))
	}
	// Only the change mark is coloured; the rest stays plain for legibility.
	return " " + st.Render(sym) + " " + rest
}

func changeMark(m *Model, c engine.Change) (string, lipgloss.Style) {
	switch c {
	case engine.Added:
		return "+", m.theme.DiffAdd
	case engine.Removed:
		return "-", m.theme.DiffDel
	}
	return "~", m.theme.Warn
}

func objectName(d *engine.ObjectDiff) string {
	name := d.Key.Name
	if d.Key.Namespace != "" {
		name = d.Key.Namespace + "/" + name
	}
	kind := d.Key.Kind
	if d.Key.Group != "" {
		kind += "." + d.Key.Group
	}
	return sanitize(kind + " " + name)
}

// body renders the visible rows of the document, starting at the offset.
func (m *Model) body(lines []string, rows int) []string {
	if rows <= 0 || m.doc.rows == 0 {
		return lines
	}
	r := m.offset
	for si := m.doc.segmentAt(r); si < len(m.doc.segments) && rows > 0; si++ {
		seg := m.doc.segments[si]
		for k := r - seg.start; k < seg.rows && rows > 0; k++ {
			lines = append(lines, m.row(seg, k))
			rows--
			r++
		}
	}
	return lines
}

// row renders row k of a segment.
func (m *Model) row(seg segment, k int) string {
	t := m.theme
	switch seg.kind {
	case segApproximate:
		return m.fit(t.Warn.Render("! approximate: the diff ran out of time; more lines may show as changed than did change"))
	case segSource:
		return t.Dim.Render(m.doc.sourceRows[k])
	case segWarnings:
		return t.Warn.Render(m.doc.warningRows[k])
	case segBanner:
		o := m.objs[seg.obj]
		sym, st := changeMark(m, o.d.Change)
		return m.fit(st.Render(sym+" ") + t.Bold.Render(objectName(o.d)) + t.Dim.Render("  "+o.d.Change.String()+
			fmt.Sprintf("  +%d -%d", o.d.Text.Inserted, o.d.Text.Deleted)))
	}
	o := m.objs[seg.obj]
	h := o.hunks[seg.hunk]
	if k == 0 {
		return m.paints.info.on(h.Header())
	}
	switch {
	case m.sideBySide:
		return m.sideRow(o.side[seg.hunk][k-1])
	case m.wrapsUnified():
		w := o.wrapped[seg.hunk][k-1]
		return m.wrappedLine(h.Lines[w.line], w)
	}
	return m.unifiedLine(h.Lines[k-1])
}

func (m *Model) unifiedLine(l engine.Line) string {
	nw := m.doc.numWidth
	nums := num(l.Old, nw) + " " + num(l.New, nw) + " "
	room := max(m.width-len(nums)-1, 0)
	text := sanitize(l.Text)
	if width(text) > room {
		m.cut = true
	}
	return m.paints.dim.on(nums) + m.linePaint(l.Op).on(marker(l.Op)+cut(text, room))
}

// wrappedLine is one row of a wrapped unified line: the numbers and the
// marker on its first row only.
func (m *Model) wrappedLine(l engine.Line, w wrappedRow) string {
	nw := m.doc.numWidth
	nums, mark := num(l.Old, nw)+" "+num(l.New, nw)+" ", marker(l.Op)
	if w.cont {
		nums, mark = strings.Repeat(" ", 2*nw+2), " "
	}
	return m.fit(m.paints.dim.on(nums) + m.linePaint(l.Op).on(mark+w.piece))
}

// sideRow renders a two-column row; the column width is chosen so that it
// fits, except on screens too narrow for two columns, where it is cut.
func (m *Model) sideRow(r engine.Row) string {
	row := m.cell(r.Old) + m.paints.dim.on(" │ ") + m.cell(r.New)
	if 2*(m.doc.numWidth+2+m.doc.colWidth)+3 > m.width {
		return m.fit(row)
	}
	return row
}

// cell renders one side of a side-by-side row, padded to the column width.
func (m *Model) cell(c engine.Cell) string {
	nw, cw := m.doc.numWidth, m.doc.colWidth
	if c.Empty() {
		return strings.Repeat(" ", nw+2+cw)
	}
	n := num(c.Line, nw)
	mark := marker(c.Op)
	if c.Continued {
		n, mark = strings.Repeat(" ", nw), " "
	}
	return m.paints.dim.on(n+" ") + m.linePaint(c.Op).on(mark+pad(cut(sanitize(c.Text), cw), cw))
}

func (m *Model) linePaint(op engine.Op) paint {
	switch op {
	case engine.Insert:
		return m.paints.add
	case engine.Delete:
		return m.paints.del
	}
	return m.paints.plain
}

func marker(op engine.Op) string {
	switch op {
	case engine.Insert:
		return "+"
	case engine.Delete:
		return "-"
	}
	return " "
}

func num(n, width int) string {
	if n == 0 {
		return strings.Repeat(" ", width)
	}
	s := strconv.Itoa(n)
	return strings.Repeat(" ", max(width-len(s), 0)) + s
}

// cut fits plain text into w cells. Very long lines are first sliced by
// bytes (no cell takes more than a few), so a huge line costs no more than a
// short one; a rune split by the slice is dropped.
func cut(s string, w int) string {
	if limit := w*8 + 8; len(s) > limit {
		s = strings.ToValidUTF8(s[:limit], "")
	}
	if width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// pad fits s into exactly w cells.
func pad(s string, w int) string {
	n := width(s)
	if n > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-n)
}

// sanitize makes text from the cluster or a repository safe to print:
// control characters and escape sequences are shown escaped (\x1b[31m),
// tabs as spaces, so no value can move the cursor or restyle the terminal.
// Lines far longer than any screen are cut first: a minified manifest line
// costs no more than a short one.
func sanitize(s string) string {
	if len(s) > maxShown {
		s = strings.ToValidUTF8(s[:maxShown], "")
	}
	return safetext.Block(s)
}

// maxShown bounds the bytes of one line sanitize looks at: more than the
// widest terminal shows, even at several bytes per cell.
const maxShown = 4096

// maxWrapped bounds the bytes of one line shown wrapped: a value that long
// is not read on a screen, and its rows would bury the rest.
const maxWrapped = 64 << 10

// sanitizeWhole is sanitize for a line shown whole: cut only past
// maxWrapped, saying so.
func sanitizeWhole(s string) string {
	if len(s) <= maxWrapped {
		return safetext.Block(s)
	}
	return safetext.Block(strings.ToValidUTF8(s[:maxWrapped], "")) + fmt.Sprintf("… (%d more bytes: the command line's diff prints the line whole)", len(s)-maxWrapped)
}
