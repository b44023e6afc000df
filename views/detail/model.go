// Package detail is the detail view of one unit: everything the model knows,
// the engine's own records, recent Events, the YAML of the object, and the
// actions with the reason when one is not possible.
package detail

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/themes"
	"github.com/driftdeck/driftdeck/views/internal/wrapped"
)

// Tab is one section of the detail view.
type Tab int

const (
	Overview Tab = iota
	Resources
	History
	Events
	YAML
)

// Model is the detail view's state.
type Model struct {
	theme         *themes.Theme
	width, height int
	unit          *model.Unit
	detail        *describe.Detail
	loadErr       string
	avail         []model.Availability
	tab           Tab
	scroll        [YAML + 1]int
	historyCursor int
	wrap          bool // long lines wrap instead of being cut
	cut           bool // the last view cut a line
}

// New opens the detail view of a unit; the description arrives later.
func New(theme *themes.Theme, u *model.Unit) *Model { return &Model{theme: theme, unit: u} }

// Key is the unit shown.
func (m *Model) Key() model.Key { return m.unit.Key }

// Unit is the unit shown, as last updated.
func (m *Model) Unit() *model.Unit { return m.unit }

// SetSize sets the drawing area.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// SetTheme switches palettes.
func (m *Model) SetTheme(t *themes.Theme) { m.theme = t }

// SetUnit updates the unit from a new snapshot.
func (m *Model) SetUnit(u *model.Unit) { m.unit = u }

// SetDetail takes a fresh description (or the error reading it).
func (m *Model) SetDetail(d *describe.Detail, err error) {
	if err != nil {
		m.loadErr = err.Error()
		return
	}
	m.detail, m.loadErr = d, ""
	m.historyCursor = min(m.historyCursor, max(len(d.History)-1, 0))
}

// SetAvailability takes the actions with their availability.
func (m *Model) SetAvailability(a []model.Availability) { m.avail = a }

// Availability returns the actions as last checked.
func (m *Model) Availability() []model.Availability { return m.avail }

// Tabs lists the tabs this unit has.
func (m *Model) Tabs() []Tab {
	switch {
	case m.unit.Argo != nil:
		return []Tab{Overview, Resources, History, Events, YAML}
	case m.unit.Root != nil:
		// No object in a cluster: no Events, no YAML.
		return []Tab{Overview}
	case m.unit.Flux != nil || m.unit.Tofu != nil:
		// Their history and plan are on the overview; no resources are read.
		return []Tab{Overview, Events, YAML}
	}
	return []Tab{Overview, Resources, Events, YAML}
}

// Tab is the tab shown.
func (m *Model) Tab() Tab { return m.tab }

// NextTab cycles forward (delta 1) or back (-1).
func (m *Model) NextTab(delta int) {
	tabs := m.Tabs()
	i := 0
	for j, t := range tabs {
		if t == m.tab {
			i = j
		}
	}
	m.tab = tabs[(i+delta+len(tabs))%len(tabs)]
}

// ShowTab jumps to a tab.
func (m *Model) ShowTab(t Tab) { m.tab = t }

// Scroll moves the content of the current tab (the cursor on History).
func (m *Model) Scroll(delta int) {
	if m.tab == History && m.detail != nil {
		m.historyCursor = min(max(m.historyCursor+delta, 0), max(len(m.detail.History)-1, 0))
		return
	}
	m.scroll[m.tab] = max(m.scroll[m.tab]+delta, 0)
}

// ToggleWrap switches between cutting long lines (marked …) and wrapping
// them whole.
func (m *Model) ToggleWrap() { m.wrap = !m.wrap }

// Wrapping reports whether long lines wrap.
func (m *Model) Wrapping() bool { return m.wrap }

// Cut reports whether the last view cut a line short: the wrap key then
// reads it whole.
func (m *Model) Cut() bool { return m.cut }

// SelectedHistory is the history entry under the cursor, for rollback.
func (m *Model) SelectedHistory() (describe.HistoryEntry, bool) {
	if m.tab != History || m.detail == nil || len(m.detail.History) == 0 {
		return describe.HistoryEntry{}, false
	}
	return m.detail.History[m.historyCursor], true
}

func (m *Model) tabTitle(t Tab) string {
	switch t {
	case Overview:
		return "Overview"
	case Resources:
		if m.unit.Stack != nil {
			return "Updates"
		}
		return "Resources"
	case History:
		return "History"
	case Events:
		return "Events"
	}
	return "YAML"
}

// View renders exactly height lines.
func (m *Model) View(now time.Time) string {
	var tabs []string
	for _, t := range m.Tabs() {
		// Brackets tell the active tab where no colour does (TERM=dumb).
		if t == m.tab {
			tabs = append(tabs, m.theme.TabActive.Render("["+m.tabTitle(t)+"]"))
		} else {
			tabs = append(tabs, m.theme.TabIdle.Render(" "+m.tabTitle(t)+" "))
		}
	}
	where := "  " + m.unit.Kind + " in " + orDash(m.unit.Key.Context)
	if !m.unit.Key.Engine.InCluster() {
		where = "  " + m.unit.Kind + ", in no cluster"
	}
	title := m.theme.Title.Render(safetext.Visible(m.unit.Key.Ref())) + m.theme.Dim.Render(safetext.Visible(where))
	m.cut = false
	lines := append(m.fit(title), ansi.Truncate(strings.Join(tabs, " "), m.width, "…"))
	var body []string
	switch m.tab {
	case Overview:
		body = m.overview(now)
	case Resources:
		body = m.resources()
	case History:
		body = m.history(now)
	case Events:
		body = m.events(now)
	case YAML:
		body = m.yaml()
	}
	if m.wrap {
		body = m.wrapAll(body)
	}
	room := max(m.height-len(lines), 0)
	off := m.scroll[m.tab]
	if m.tab == History {
		off = max(m.historyCursor-room+3, 0)
	}
	off = min(off, max(len(body)-room, 0))
	m.scroll[m.tab] = off
	for i := off; i < len(body) && len(lines) < m.height; i++ {
		lines = append(lines, m.fit(body[i])[0])
	}
	for len(lines) < m.height {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// fit is a line as shown: wrapped whole, or cut with its cut marked.
func (m *Model) fit(l string) []string {
	if m.wrap {
		return wrapped.Hang(l, m.width, indentOf(l)+2)
	}
	if ansi.StringWidth(l) > m.width {
		m.cut = true
		return []string{ansi.Truncate(l, m.width, "…")}
	}
	return []string{l}
}

// wrapAll wraps every line of a body whole, so that scrolling counts the
// lines on screen.
func (m *Model) wrapAll(body []string) []string {
	out := make([]string, 0, len(body))
	for _, l := range body {
		out = append(out, m.fit(l)...)
	}
	return out
}

// indentOf counts a rendered line's leading spaces: continuation lines hang
// under its text, as YAML nests.
func indentOf(l string) int {
	p := ansi.Strip(l)
	return len(p) - len(strings.TrimLeft(p, " "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
