// Package diff is the diff screen: what a sync would change, object by
// object. A summary lists every changed object (kind, namespace/name, the
// change, +/- line counts, the changed fields); below it, one scrolling
// document holds each object's hunks, unified with line numbers or side by
// side. It renders only the rows on screen, so its cost per frame does not
// grow with the size of the diff.
package diff

import (
	"slices"

	engine "github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/themes"
)

// Model is the diff screen's state.
type Model struct {
	theme         *themes.Theme
	paints        paints
	width, height int

	report   *engine.Report
	revision string
	source   string
	warnings []string
	err      string

	objs       []*objectView // the changed objects, in report order
	sideBySide bool
	wrap       bool // unified lines wider than the screen go on over rows
	cut        bool // the last view cut a line short

	doc       document // the body's rows, for the current mode and width
	offset    int      // first body row on screen
	sumOffset int      // first summary row on screen
}

// objectView is one changed object with its hunks, and its side-by-side
// and wrapped unified rows for the width they were last laid out for.
type objectView struct {
	d            *engine.ObjectDiff
	hunks        []engine.Hunk
	side         [][]engine.Row
	sideWidth    int
	wrapped      [][]wrappedRow
	wrappedWidth int
	fieldsText   string
}

// New returns an empty diff screen; it says the diff is being computed until
// a report arrives.
func New(theme *themes.Theme) *Model { return &Model{theme: theme, paints: paintsOf(theme)} }

// SetTheme switches palettes.
func (m *Model) SetTheme(t *themes.Theme) { m.theme, m.paints = t, paintsOf(t) }

// SetSize sets the drawing area.
func (m *Model) SetSize(w, h int) {
	if w == m.width && h == m.height {
		return
	}
	m.width, m.height = max(w, 0), max(h, 0)
	m.relayout()
}

// SetReport shows a report, computed against revision (shown in the header;
// an approval given on this screen is bound to it). Scrolling starts at the
// top.
func (m *Model) SetReport(r *engine.Report, revision string) {
	m.report, m.revision, m.err = r, revision, ""
	m.objs = m.objs[:0]
	if r != nil {
		for _, o := range r.Objects {
			if o.Change == engine.Unchanged {
				continue
			}
			m.objs = append(m.objs, &objectView{d: o, hunks: o.Text.Hunks(engine.DefaultContext), fieldsText: fieldsText(o)})
		}
	}
	m.offset, m.sumOffset = 0, 0
	m.relayout()
}

// SetWarnings shows notes about the diff above the objects (kinds the
// cluster does not serve, refused dry runs, ...).
func (m *Model) SetWarnings(w []string) {
	m.warnings = slices.Clone(w)
	m.relayout()
}

// SetSource names where the diff came from (the Argo CD API server or a
// local render), shown in the footer.
func (m *Model) SetSource(s string) {
	m.source = s
	m.relayout()
}

// SetError shows why the diff could not be computed instead of a report.
func (m *Model) SetError(err error) {
	m.err = ""
	if err != nil {
		m.err = err.Error()
	}
}

// Report is the report shown, nil before one arrives.
func (m *Model) Report() *engine.Report { return m.report }

// Revision is the revision the shown report was computed against.
func (m *Model) Revision() string { return m.revision }

// ToggleSideBySide switches between the unified and the two-column layout,
// keeping the object on screen.
func (m *Model) ToggleSideBySide() { m.keepingObject(func() { m.sideBySide = !m.sideBySide }) }

// keepingObject changes the layout with change, then scrolls back to the
// start of the object that was on screen.
func (m *Model) keepingObject(change func()) {
	cur, _ := m.current()
	change()
	m.relayout()
	if cur >= 0 {
		m.offset = m.clamp(m.doc.objectStart[cur])
	}
}

// SideBySide reports the two-column layout.
func (m *Model) SideBySide() bool { return m.sideBySide }

// ToggleWrap switches unified lines wider than the screen between cut
// (marked …) and whole over several rows, keeping the object on screen.
func (m *Model) ToggleWrap() { m.keepingObject(func() { m.wrap = !m.wrap }) }

// Wrapping reports whether long unified lines wrap (side by side, cells
// always do).
func (m *Model) Wrapping() bool { return m.wrapsUnified() }

// Cut reports whether the last view cut a unified line short: ToggleWrap
// then shows it whole.
func (m *Model) Cut() bool { return m.cut }

// Page is the number of body rows on screen, for page up and down.
func (m *Model) Page() int { return max(m.layout().body, 1) }

// Scroll moves the body by n rows (negative is up), within its bounds.
func (m *Model) Scroll(n int) { m.offset = m.clamp(m.offset + n) }

// NextObject jumps to the start of the next (delta 1) or previous (-1)
// object. Going back from inside an object first returns to its own start.
func (m *Model) NextObject(delta int) {
	if len(m.objs) == 0 {
		return
	}
	cur, start := m.current()
	target := cur + delta
	if delta < 0 && cur >= 0 && m.offset > start {
		target = cur + delta + 1
	}
	target = min(max(target, 0), len(m.objs)-1)
	m.offset = m.clamp(m.doc.objectStart[target])
}

// CurrentObject is the index (among the changed objects) of the object at
// the top of the body, -1 when there is none, and its diff.
func (m *Model) CurrentObject() (int, *engine.ObjectDiff) {
	cur, _ := m.current()
	if cur < 0 {
		return -1, nil
	}
	return cur, m.objs[cur].d
}

func (m *Model) current() (index, start int) {
	if len(m.objs) == 0 {
		return -1, 0
	}
	i := m.doc.objectAt(m.offset)
	return i, m.doc.objectStart[i]
}

// clamp keeps the offset in the document. The last object may be scrolled
// to the top even when it is shorter than the screen, so that jumping to it
// puts it at the top like every other object.
func (m *Model) clamp(offset int) int {
	bottom := m.doc.rows - m.layout().body
	if n := len(m.doc.objectStart); n > 0 {
		bottom = max(bottom, m.doc.objectStart[n-1])
	}
	return min(max(offset, 0), max(bottom, 0))
}

// relayout rebuilds the row index after a change of report, mode or width.
func (m *Model) relayout() {
	m.doc = m.buildDocument()
	m.offset = m.clamp(m.offset)
}
