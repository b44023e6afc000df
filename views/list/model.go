// Package list is the main screen: every unit in one live table that fits
// the terminal, with filter, scope, sort, multi-select and changed-cell
// highlights. It renders only the rows that are visible.
package list

import (
	"slices"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/tree"
	"github.com/driftdeck/driftdeck/themes"
)

// HighlightFor is how long a changed cell stays highlighted.
const HighlightFor = 2 * time.Second

// Model is the list's state.
type Model struct {
	theme        *themes.Theme
	width        int
	height       int
	multiContext bool

	all   []*model.Unit // every unit, in key order
	hays  []string      // the haystack of each of all (a filter searches them)
	keys  []sortKey     // the sort keys of each of all
	shown []*model.Unit // filtered, scoped, sorted: the top of steps
	steps []filterStep  // see index.go
	// stepsSort is the order the steps are in: the sort when they were
	// built.
	stepsSort SortMode
	// keptOrders are the base steps of the other sorts, as last shown (see
	// keptorders.go).
	keptOrders map[SortMode]*keptOrder
	cursor     int
	offset     int

	filter Filter
	scope  Scope
	sort   SortMode
	marked map[model.Key]bool
	tree   treeState

	rows map[model.Key]*rowCache
	// drawn holds the rows of the last frame only (kept on every row, they
	// cost about 130 bytes a unit); drawing is the next frame's, swapped in.
	drawn, drawing map[model.Key]drawnRow
	// nameWidth is the widest namespace/name, for the name column.
	nameWidth int

	// status is the cursor row's whole text, wrapped, as last laid out.
	status statusCache
}

// rowCache keeps a unit's rendered cells until the unit changes, and which
// cells changed at the last change and until when they stay highlighted.
type rowCache struct {
	unit      *model.Unit
	cells     [numColumns]string
	haystack  string
	changed   [numColumns]bool
	highlight time.Time
}

// drawnRow is a row as last rendered and what it was rendered from: a frame
// redraws only the rows whose inputs changed (a cursor move two of them),
// since styling a row costs far more than comparing.
type drawnRow struct {
	text string
	from drawInputs
}

// drawInputs is everything a rendered row depends on.
type drawInputs struct {
	unit                  *model.Unit
	theme                 *themes.Theme
	width, nameWidth      int
	multiContext          bool
	selected, marked, lit bool
	// The cells that follow the clock, as text (the automation cell's
	// style changes only with its text).
	age, automation string
	// In the tree: the indentation and fold glyph before the name, and a
	// parent's summary of the units below it.
	treePrefix, summary string
}

// New returns an empty list, sorted by state: the worst first, as someone
// on call looks for it.
func New(theme *themes.Theme) *Model {
	return &Model{theme: theme, sort: ByState, marked: map[model.Key]bool{}, rows: map[model.Key]*rowCache{}, keptOrders: map[SortMode]*keptOrder{},
		tree: treeState{forest: tree.Build(nil), flipped: map[model.Key]bool{}, orders: map[SortMode]*treeOrder{}}}
}

// SetTheme switches palettes.
func (m *Model) SetTheme(t *themes.Theme) { m.theme = t }

// SetSize sets the area the list may draw in.
func (m *Model) SetSize(width, height int) {
	m.width, m.height = width, max(height, 1)
	m.clampCursor()
}

// SetUnits takes a new model snapshot (key order) and the keys that changed.
// Rows whose visible text changed are highlighted. The list keeps units, as
// the store's batches allow: the caller never changes the slice afterwards
// (units at the same place as last time are taken as unchanged).
func (m *Model) SetUnits(units []*model.Unit, changed map[model.Key]bool, now time.Time) {
	selected := m.selectedKey()
	prev := m.all
	units = inKeyOrder(units, prev)
	m.all = units
	// The same keys at the same places: the steps take the changed units
	// one by one instead of being rebuilt, and the name column keeps its
	// width.
	sameKeys := len(prev) == len(units)
	inPlace := sameKeys && m.steps != nil
	type swap struct {
		old, new *model.Unit
		at       int // in all, and so in hays
	}
	var swaps []swap
	// The haystacks and sort keys stay aligned with all: in place while the
	// length holds (a unit at a new place is not the same pointer at that
	// place).
	prevHays, prevKeys, fresh := m.hays, m.keys, len(m.hays) != len(units)
	if fresh {
		m.hays, m.keys = make([]string, len(units)), make([]sortKey, len(units))
	}
	for i, u := range units {
		if i < len(prev) && prev[i] == u {
			if fresh {
				m.hays[i], m.keys[i] = prevHays[i], prevKeys[i]
			}
			continue // the same unit as before: its row is current
		}
		if sameKeys && prev[i].Key != u.Key {
			sameKeys, inPlace = false, false
		}
		if inPlace {
			swaps = append(swaps, swap{prev[i], u, i})
		}
		m.hays[i], m.keys[i] = m.rowOf(u, changed[u.Key], now).haystack, sortKeyOf(u)
	}
	if !sameKeys {
		m.nameWidth, m.multiContext = nameColumn(units)
	}
	if len(m.rows) > len(units) {
		// Units went away: forget their rows and marks.
		present := make(map[model.Key]bool, len(units))
		for _, u := range units {
			present[u.Key] = true
		}
		for k := range m.rows {
			if !present[k] {
				delete(m.rows, k)
				delete(m.marked, k)
				delete(m.tree.flipped, k)
			}
		}
	}
	m.forestOf(units)
	// The flat list moves only the changed units within its steps, the
	// tree's orders only the nodes the batch touched; the tree's rows are
	// laid out again from them.
	if !inPlace || len(swaps) > len(units)/8 {
		clear(m.keptOrders) // they are of the units before
		m.refresh(selected)
		return
	}
	for _, sw := range swaps {
		m.replace(sw.old, sw.new, m.hays[sw.at])
	}
	if m.tree.on {
		m.shown = m.treeRows()
	}
	m.reselect(selected)
}

// nameColumn is the width of the widest namespace/name of units, and
// whether they are of more than one context. Root modules are in no
// context: beside one cluster they add no CONTEXT column. It reads every
// unit: a batch that only replaces units keeps both.
func nameColumn(units []*model.Unit) (width int, multiContext bool) {
	first := ""
	for _, u := range units {
		width = max(width, len(u.Key.Namespace)+len(u.Key.Name)+2)
		if c := u.Key.Context; c != "" && first == "" {
			first = c
		} else if c != "" && c != first {
			multiContext = true
		}
	}
	return width, multiContext
}

// rowOf is u's row, made again when u is not the unit it was made from; a
// changed unit's cells that differ from before are highlighted.
func (m *Model) rowOf(u *model.Unit, changed bool, now time.Time) *rowCache {
	rc := m.rows[u.Key]
	if rc != nil && rc.unit == u {
		return rc
	}
	fresh := newRowCache(u)
	if rc != nil && changed {
		for c := range fresh.cells {
			if fresh.cells[c] != rc.cells[c] {
				fresh.changed[c] = true
				fresh.highlight = now.Add(HighlightFor)
			}
		}
	}
	m.rows[u.Key] = fresh
	return fresh
}

// inKeyOrder is units in key order: the store's snapshots are in that
// order already, and differ from the last one (prev) in a few units. Only
// a slice out of order is copied, to be sorted: copying every batch's
// 70,000 pointers made most of a batch's garbage.
func inKeyOrder(units, prev []*model.Unit) []*model.Unit {
	if model.InKeyOrderSince(units, prev) {
		return units
	}
	units = slices.Clone(units)
	slices.SortFunc(units, func(a, b *model.Unit) int { return model.CompareKeys(a.Key, b.Key) })
	return units
}

func newRowCache(u *model.Unit) *rowCache {
	rc := &rowCache{unit: u, haystack: haystack(u)}
	for c := 0; c < numColumns; c++ {
		if !timeDependent(c) {
			// Names, revisions and reasons come from the cluster: escaped,
			// so that no value can drive the terminal.
			rc.cells[c] = safetext.Visible(columns[c].cell(u, time.Time{}))
		}
	}
	return rc
}

// refresh recomputes the shown rows, keeping the cursor on the same unit.
func (m *Model) refresh(keep *model.Key) {
	m.rebuild()
	if m.tree.on {
		m.shown = m.treeRows()
	}
	m.reselect(keep)
}

// reselect puts the cursor back on the unit it was on, when still shown.
// The unit is looked up in all by key, then found in shown by its pointer:
// comparing keys along 70,000 rows read every unit from memory.
func (m *Model) reselect(keep *model.Key) {
	if keep != nil && (m.cursor >= len(m.shown) || m.shown[m.cursor].Key != *keep) {
		at, found := slices.BinarySearchFunc(m.all, *keep, func(u *model.Unit, k model.Key) int { return model.CompareKeys(u.Key, k) })
		if found {
			if i := slices.Index(m.shown, m.all[at]); i >= 0 {
				m.cursor = i
			}
		}
	}
	m.clampCursor()
}

func (m *Model) selectedKey() *model.Key {
	if u := m.Selected(); u != nil {
		k := u.Key
		return &k
	}
	return nil
}

// Selected is the unit under the cursor, nil when none is shown.
func (m *Model) Selected() *model.Unit {
	if m.cursor < 0 || m.cursor >= len(m.shown) {
		return nil
	}
	return m.shown[m.cursor]
}

// Shown is the filtered, sorted list.
func (m *Model) Shown() []*model.Unit { return m.shown }

// Total is the number of units before filtering.
func (m *Model) Total() int { return len(m.all) }

// SetFilter applies what the user typed after "/". Typing more of a plain
// word searches only the rows the shorter word left.
func (m *Model) SetFilter(text string) {
	prev, keep := m.filter, m.selectedKey()
	m.filter = ParseFilter(text)
	m.revealInTree(keep)
	if m.steps == nil {
		m.rebuild()
	} else {
		m.applyFilter(m.filter)
	}
	switch {
	case m.tree.on:
		m.shown = m.treeRows()
	case m.filter.narrows(prev):
		m.cursor = 0
	}
	m.reselect(keep)
	if u := m.Selected(); m.tree.on && m.filter.Active() && u != nil && !m.matches(u) {
		m.cursor = m.firstMatch()
	}
}

// Filter returns the active filter.
func (m *Model) Filter() Filter { return m.filter }

// SetScope applies a ":" command's narrowing.
func (m *Model) SetScope(s Scope) {
	m.scope = s
	clear(m.keptOrders) // they are of the scope before
	keep := m.selectedKey()
	m.revealInTree(keep)
	m.refresh(keep)
}

// Scope returns the active scope.
func (m *Model) Scope() Scope { return m.scope }

// SetSort orders the list. The tree orders its own rows: the flat
// list's steps are sorted again when it is shown. An order shown before is
// taken back as it was kept, with the units changed since merged in.
func (m *Model) SetSort(s SortMode) {
	m.sort = s
	keep := m.selectedKey()
	switch {
	case m.tree.on:
		m.relayTree(keep)
	case s == m.stepsSort && m.steps != nil:
		m.reselect(keep)
	case m.takeKeptOrder(s):
		m.reselect(keep)
	default:
		left, leftSort := m.steps, m.stepsSort
		m.refresh(keep)
		m.keepOrder(leftSort, left)
	}
}

// Sort returns the active order.
func (m *Model) Sort() SortMode { return m.sort }

// Move moves the cursor by delta rows.
func (m *Model) Move(delta int) {
	m.cursor += delta
	m.clampCursor()
}

// MoveTo puts the cursor on a row (negative counts from the end).
func (m *Model) MoveTo(row int) {
	if row < 0 {
		row = len(m.shown) + row
	}
	m.cursor = row
	m.clampCursor()
}

// Page is the number of rows one screen shows: the height less the header
// and the cursor row's status lines.
func (m *Model) Page() int { return max(m.height-1-m.statusHeight(), 1) }

func (m *Model) clampCursor() {
	m.cursor = min(max(m.cursor, 0), max(len(m.shown)-1, 0))
	page := m.Page()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+page {
		m.offset = m.cursor - page + 1
	}
	m.offset = min(max(m.offset, 0), max(len(m.shown)-page, 0))
}

// ToggleMark marks or unmarks the selected unit and moves down. On a
// parent row of the tree it marks its children (the ones Targets names),
// or unmarks them when all were marked.
func (m *Model) ToggleMark() {
	u := m.Selected()
	if u == nil {
		return
	}
	if _, children, ok := m.Targets(); ok {
		all := true
		for _, c := range children {
			all = all && m.marked[c.Key]
		}
		for _, c := range children {
			if all {
				delete(m.marked, c.Key)
			} else {
				m.marked[c.Key] = true
			}
		}
		m.Move(1)
		return
	}
	if m.marked[u.Key] {
		delete(m.marked, u.Key)
	} else {
		m.marked[u.Key] = true
	}
	m.Move(1)
}

// MarkShown marks every shown unit, or clears the marks when all are marked.
func (m *Model) MarkShown() {
	all := len(m.shown) > 0
	for _, u := range m.shown {
		if !m.marked[u.Key] {
			all = false
			break
		}
	}
	if all {
		clear(m.marked)
		return
	}
	for _, u := range m.shown {
		m.marked[u.Key] = true
	}
}

// ClearMarks unmarks everything.
func (m *Model) ClearMarks() { clear(m.marked) }

// Marked lists the marked units in display order.
func (m *Model) Marked() []*model.Unit {
	if len(m.marked) == 0 {
		return nil
	}
	var out []*model.Unit
	for _, u := range m.shown {
		if m.marked[u.Key] {
			out = append(out, u)
		}
	}
	for _, u := range m.all { // marked but filtered out: still marked
		if m.marked[u.Key] && !contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

func contains(us []*model.Unit, u *model.Unit) bool {
	for _, x := range us {
		if x == u {
			return true
		}
	}
	return false
}

// NextChange is the first moment after now at which a visible row is drawn
// differently with time alone: an age's text changes, a pause expires, a
// highlight ends. Zero when none will: the list need not be drawn again
// until something else changes.
func (m *Model) NextChange(now time.Time) time.Time {
	next := model.Soonest{Now: now}
	end := min(m.offset+m.Page(), len(m.shown))
	for i := m.offset; i < end; i++ {
		u := m.shown[i]
		if rc := m.rows[u.Key]; rc != nil && i != m.cursor { // the cursor's bar shows no highlight
			next.Offer(rc.highlight)
		}
		if !u.RunSince.IsZero() {
			next.Offer(now.Add(model.HumanDurationChangesIn(now.Sub(u.RunSince))))
		}
		if u.Pause != nil && !u.Pause.Until.IsZero() {
			next.Offer(u.Pause.Until.Add(time.Nanosecond)) // Expired is strictly after
		}
	}
	return next.At
}
