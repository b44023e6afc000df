// Package detail is the detail view of one unit: everything the model knows,
// the engine's own records, recent Events, the YAML of the object, and the
// actions with the reason when one is not possible.
package detail

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/themes"
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
	avail         []actions.Availability
	tab           Tab
	scroll        [YAML + 1]int
	historyCursor int
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
func (m *Model) SetAvailability(a []actions.Availability) { m.avail = a }

// Availability returns the actions as last checked.
func (m *Model) Availability() []actions.Availability { return m.avail }

// Tabs lists the tabs this unit has.
func (m *Model) Tabs() []Tab {
	switch {
	case m.unit.Argo != nil:
		return []Tab{Overview, Resources, History, Events, YAML}
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
	title := m.theme.Title.Render(safetext.Visible(m.unit.Key.Ref())) + m.theme.Dim.Render(safetext.Visible("  "+m.unit.Kind+" in "+orDash(m.unit.Key.Context)))
	lines := []string{ansi.Truncate(title, m.width, "…"), ansi.Truncate(strings.Join(tabs, " "), m.width, "…")}
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
	room := max(m.height-len(lines), 0)
	off := m.scroll[m.tab]
	if m.tab == History {
		off = max(m.historyCursor-room+3, 0)
	}
	off = min(off, max(len(body)-room, 0))
	m.scroll[m.tab] = off
	for i := off; i < len(body) && len(lines) < m.height; i++ {
		lines = append(lines, ansi.Truncate(body[i], m.width, "…"))
	}
	for len(lines) < m.height {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
