// Package restree draws an Application's live resource tree: one row per
// resource, indented under its owner, with health, sync state, hook phase
// and the reason of the unhealthy ones; a cursor and marks to pick the
// resources a diff or a sync acts on.
package restree

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	tree "github.com/driftdeck/driftdeck/backend/restree"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/themes"
	"github.com/driftdeck/driftdeck/views/internal/wrapped"
)

// Model is the tree of one Application with a cursor and marks.
type Model struct {
	theme         *themes.Theme
	title         string
	tree          *tree.Tree
	rows          []tree.Row
	err           error
	cursor, top   int
	width, height int
	marked        map[tree.Ref]bool
	wrap          bool // long rows wrap instead of being cut
	cut           bool // the last view cut a line
}

// New makes an empty tree view titled with the Application's name.
func New(theme *themes.Theme, title string) *Model {
	return &Model{theme: theme, title: title, marked: map[tree.Ref]bool{}}
}

func (m *Model) SetTheme(t *themes.Theme) { m.theme = t }
func (m *Model) SetSize(w, h int)         { m.width, m.height = w, h }

// SetTree shows a tree read again; the cursor stays on the same resource
// when it is still there, and marks of resources gone are dropped.
func (m *Model) SetTree(t *tree.Tree, err error) {
	m.err = err
	if err != nil {
		return
	}
	var at tree.Ref
	if n := m.Selected(); n != nil {
		at = n.Ref
	}
	m.tree, m.rows = t, t.Rows()
	m.cursor = 0
	present := map[tree.Ref]bool{}
	for i, r := range m.rows {
		present[r.Node.Ref] = true
		if r.Node.Ref == at {
			m.cursor = i
		}
	}
	for ref := range m.marked {
		if !present[ref] {
			delete(m.marked, ref)
		}
	}
	m.clamp()
}

// Tree is the tree shown, nil before the first read.
func (m *Model) Tree() *tree.Tree { return m.tree }

// Move moves the cursor by n rows (clamped).
func (m *Model) Move(n int) {
	m.cursor += n
	m.clamp()
}

func (m *Model) clamp() {
	m.cursor = min(max(m.cursor, 0), max(len(m.rows)-1, 0))
	body := m.bodyHeight()
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+body {
		m.top = m.cursor - body + 1
	}
	m.top = max(m.top, 0)
}

// Page is how many rows one screen holds.
func (m *Model) Page() int { return m.bodyHeight() }

// Selected is the resource under the cursor.
func (m *Model) Selected() *tree.Node {
	if m.cursor < len(m.rows) {
		return m.rows[m.cursor].Node
	}
	return nil
}

// ToggleMark marks or unmarks the resource under the cursor.
func (m *Model) ToggleMark() {
	if n := m.Selected(); n != nil {
		if m.marked[n.Ref] {
			delete(m.marked, n.Ref)
		} else {
			m.marked[n.Ref] = true
		}
	}
}

// ClearMarks unmarks every resource; it reports whether any was marked.
func (m *Model) ClearMarks() bool {
	had := len(m.marked) > 0
	m.marked = map[tree.Ref]bool{}
	return had
}

// Targets are the marked resources in tree order, or the one under the
// cursor when none is marked.
func (m *Model) Targets() []*tree.Node {
	var out []*tree.Node
	for _, r := range m.rows {
		if m.marked[r.Node.Ref] {
			out = append(out, r.Node)
		}
	}
	if len(out) == 0 {
		if n := m.Selected(); n != nil {
			out = append(out, n)
		}
	}
	return out
}

// Marked counts the marked resources.
func (m *Model) Marked() int { return len(m.marked) }

// header is the title, the summary and the notes: what the body shares
// the screen with.
func (m *Model) header() []string {
	t := m.theme
	lines := []string{t.Title.Render(m.title)}
	switch {
	case m.err != nil:
		lines = append(lines, t.Bad.Render(safetext.Visible(m.err.Error())))
	case m.tree == nil:
		lines = append(lines, t.Dim.Render("reading the unit and its live objects…"))
	default:
		src := "live objects from " + safetext.Visible(m.tree.Destination)
		if !m.tree.LiveRead {
			src = m.tree.Recorded + " only (no live objects)"
		}
		line := fmt.Sprintf("%s · %s", m.tree.Summary(), src)
		if op := m.tree.Operation; op != "" {
			line += " · operation " + safetext.Visible(op)
		}
		if n := len(m.marked); n > 0 {
			line += fmt.Sprintf(" · %d marked", n)
		}
		lines = append(lines, t.Dim.Render(line))
		for _, n := range m.tree.Notes {
			lines = append(lines, t.Warn.Render("! "+safetext.Visible(n)))
		}
	}
	return lines
}

// bodyHeight is how many rows fit under the header; the hooks' heading
// takes one when there are hooks.
func (m *Model) bodyHeight() int {
	h := m.height - len(m.header())
	if m.tree != nil && len(m.tree.Hooks) > 0 {
		h--
	}
	return max(h, 1)
}

// ToggleWrap switches between cutting long rows (marked …) and wrapping
// them whole.
func (m *Model) ToggleWrap() { m.wrap = !m.wrap }

// Wrapping reports whether long rows wrap.
func (m *Model) Wrapping() bool { return m.wrap }

// Cut reports whether the last view cut a line short.
func (m *Model) Cut() bool { return m.cut }

// View draws the header and the rows that fit.
func (m *Model) View() string {
	m.cut = false
	var head []string
	for _, l := range m.header() {
		head = append(head, m.fit(l, 2)...)
	}
	if m.tree != nil && len(m.rows) == 0 {
		head = append(head, m.theme.Dim.Render("status.resources lists nothing"))
	}
	room := max(m.height-len(head), 1)
	body, holdsCursor := m.rowLines(room)
	// Wrapped rows take more lines than the cursor's clamp counted: scroll
	// on until the cursor's row is whole on screen.
	for !holdsCursor && m.top < m.cursor {
		m.top++
		body, holdsCursor = m.rowLines(room)
	}
	return strings.Join(append(head, body...), "\n")
}

// rowLines draws the rows from the top one while room lines last, and
// reports whether the cursor's row is among them whole.
func (m *Model) rowLines(room int) (lines []string, holdsCursor bool) {
	prevHook := m.top > 0 && m.rows[m.top-1].Hook
	nameWidth := m.nameWidth()
	hang := 2 + m.markWidth() + nameWidth + 2 // continuation lines start under the health column
	for i := m.top; i < len(m.rows) && len(lines) < room; i++ {
		r := m.rows[i]
		if r.Hook && !prevHook && r.Depth == 0 {
			lines = append(lines, m.theme.Bold.Render("Hooks of the operation"))
		}
		prevHook = r.Hook
		row := m.fit(m.row(r, i == m.cursor, nameWidth), hang)
		lines = append(lines, row...)
		if i == m.cursor {
			holdsCursor = len(lines) <= room
		}
	}
	return lines[:min(len(lines), room)], holdsCursor
}

// markWidth is the width of the mark box, none where nothing is marked.
func (m *Model) markWidth() int {
	if m.tree != nil && !m.tree.PerResource {
		return 0
	}
	return 4
}

// fit is a line as shown: wrapped whole, or cut with its cut marked.
func (m *Model) fit(l string, hang int) []string {
	w := max(m.width, 1)
	if m.wrap {
		return wrapped.Hang(l, w, hang)
	}
	if ansi.StringWidth(l) > w {
		m.cut = true
		return []string{ansi.Truncate(l, w, "…")}
	}
	return []string{l}
}

// nameWidth is the width of the name column: the widest of every row's
// (not only the visible ones', so the columns hold still while scrolling),
// but at most half the screen, so a long name pushes only its own row.
func (m *Model) nameWidth() int {
	w := 0
	for _, r := range m.rows {
		w = max(w, ansi.StringWidth(m.nameCell(r)))
	}
	return min(w, max(m.width/2, 24))
}

// nameCell is a row's indented kind/name, with the namespace of a
// top-level resource.
func (m *Model) nameCell(r tree.Row) string {
	n := r.Node
	indent := strings.Repeat("  ", r.Depth)
	if r.Depth > 0 {
		indent = strings.Repeat("  ", r.Depth-1) + "└ "
	}
	name := indent + safetext.Visible(n.Kind+"/"+n.Name)
	if n.Namespace != "" && r.Depth == 0 {
		name += m.theme.Dim.Render("  " + safetext.Visible(n.Namespace))
	}
	return name
}

func (m *Model) row(r tree.Row, selected bool, nameWidth int) string {
	t, n := m.theme, r.Node
	cursor, mark := "  ", "[ ] "
	if selected {
		cursor = "> " // a mark too, not only a colour
	}
	switch {
	case m.markWidth() == 0:
		mark = "" // nothing to mark: the unit applies as a whole
	case m.marked[n.Ref]:
		mark = "[x] "
	}
	name := m.nameCell(r)
	name += strings.Repeat(" ", max(nameWidth-ansi.StringWidth(name), 0))
	cols := []string{healthStyle(t, n.Health).Render(fmt.Sprintf("%-11s", orDash(string(n.Health))))}
	switch {
	case n.Hook != "":
		cols = append(cols, t.Info.Render(safetext.Visible(n.Hook+" hook, "+orDash(n.HookPhase))))
	case n.Sync == "OutOfSync":
		cols = append(cols, t.Warn.Render("OutOfSync"))
	case n.Sync != "":
		cols = append(cols, t.Dim.Render(safetext.Visible(n.Sync)))
	}
	if n.Reason != "" && (n.Health != tree.Healthy || n.Hook != "") {
		cols = append(cols, healthStyle(t, n.Health).Render(safetext.Visible(n.Reason)))
	}
	line := cursor + mark + name + "  " + strings.Join(cols, "  ")
	if selected {
		return t.Selected.Render(ansi.Strip(line))
	}
	return line
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func healthStyle(t *themes.Theme, h tree.Health) lipgloss.Style {
	switch h {
	case tree.Healthy:
		return t.Good
	case tree.Degraded:
		return t.Bad
	case tree.Progressing:
		return t.Info
	case tree.Missing, tree.Suspended:
		return t.Warn
	}
	return t.Dim
}
