package list

import (
	"slices"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/tree"
)

// The tree view shows each unit under its parent (ADR 0013). Parents start
// folded; which rows are open is the default (allOpen) flipped for the keys
// in flipped, so that opening or folding everything costs nothing.
type treeState struct {
	on      bool
	forest  *tree.Forest
	allOpen bool
	flipped map[model.Key]bool
	// orders keeps the siblings sorted by state and by age, as far as laid
	// out; by name they are in the forest's key order already.
	orders map[SortMode]*treeOrder
	// kept marks, by node index, the rows a filter or scope leaves: the
	// matches and the parents above them (see markPaths).
	kept []bool
	// indent is the widest tree prefix shown, for the name column.
	indent int
}

// Tree reports whether the list shows the tree.
func (m *Model) Tree() bool { return m.tree.on }

// SetTree switches between the tree and the flat list, keeping the cursor
// on the same unit (opening its parents in the tree).
func (m *Model) SetTree(on bool) {
	keep := m.selectedKey()
	m.tree.on = on
	m.revealInTree(keep)
	m.refresh(keep)
}

// forestOf keeps the forest current with a new snapshot; it is read on
// batches only, and kept in place when no unit changed its parents. The
// kept orders move the nodes the batch touched, or start again on a new
// forest.
func (m *Model) forestOf(units []*model.Unit) {
	f, touched := m.tree.forest.Update(units)
	if f != m.tree.forest {
		m.tree.forest = f
		clear(m.tree.orders)
		return
	}
	for _, o := range m.tree.orders {
		o.move(touched)
	}
}

// siblings are the nodes under parent (the roots under nil) in the list's
// order; by state, a parent ranks by the worst unit below it, so that
// trouble is never folded away at the bottom.
func (m *Model) siblings(parent *tree.Node) []*tree.Node {
	inKeys := m.tree.forest.Roots
	if parent != nil {
		inKeys = parent.Children
	}
	if m.sort == ByName || len(inKeys) < 2 {
		return inKeys
	}
	o := m.tree.orders[m.sort]
	if o == nil {
		o = newTreeOrder(m.sort)
		m.tree.orders[m.sort] = o
	}
	return o.siblings(parent, inKeys)
}

// relayTree lays out the tree's rows again after a fold or a sort: the
// flat list's steps stay as they are.
func (m *Model) relayTree(keep *model.Key) {
	if m.steps == nil {
		m.rebuild()
	}
	m.shown = m.treeRows()
	m.reselect(keep)
}

func (m *Model) open(n *tree.Node) bool {
	return len(n.Children) > 0 && m.tree.allOpen != m.tree.flipped[n.Unit.Key]
}

func (m *Model) setOpen(k model.Key, open bool) {
	if open == m.tree.allOpen {
		delete(m.tree.flipped, k)
	} else {
		m.tree.flipped[k] = true
	}
}

// reveal opens every parent above a unit.
func (m *Model) reveal(k model.Key) {
	n, ok := m.tree.forest.Node(k)
	if !ok {
		return
	}
	for p := n.Parent; p != nil; p = p.Parent {
		m.setOpen(p.Unit.Key, true)
	}
}

// revealInTree keeps the cursor's unit in sight when a filter or scope
// changes: its parents open, so that clearing a filter leaves the cursor
// where the match was.
func (m *Model) revealInTree(k *model.Key) {
	if m.tree.on && k != nil {
		m.reveal(*k)
	}
}

// firstMatch is the first row the filter and scope show for itself (0 when
// none). Every row of a narrowed tree is a match or leads to one, so the
// walk stops within a path's depth.
func (m *Model) firstMatch() int {
	for i, u := range m.shown {
		if m.matches(u) {
			return i
		}
	}
	return 0
}

// ToggleFold opens or folds the row under the cursor; on a row without
// children it folds the row's parent and moves the cursor there.
func (m *Model) ToggleFold() {
	u := m.Selected()
	if !m.tree.on || u == nil {
		return
	}
	n, ok := m.tree.forest.Node(u.Key)
	if !ok {
		return
	}
	if len(n.Children) == 0 {
		if n.Parent == nil {
			return
		}
		n = n.Parent
		m.setOpen(n.Unit.Key, false)
	} else {
		m.setOpen(n.Unit.Key, !m.open(n))
	}
	k := n.Unit.Key
	m.relayTree(&k)
}

// ToggleFoldAll opens every parent, or folds them all when they were open.
func (m *Model) ToggleFoldAll() {
	m.tree.allOpen = !m.tree.allOpen
	clear(m.tree.flipped)
	m.relayTree(m.selectedKey())
}

// AllOpen reports whether every parent is open by default.
func (m *Model) AllOpen() bool { return m.tree.allOpen }

// matches is whether a unit passes the scope and the filter.
func (m *Model) matches(u *model.Unit) bool {
	return m.scope.Contains(u) && (!m.filter.Active() || m.filter.Match(m.rows[u.Key].haystack))
}

// treeRows lays out the shown rows of the tree. Without a filter or scope
// it visits only the open parents' children; with one it keeps every
// matching unit and the path to it, opened.
func (m *Model) treeRows() []*model.Unit {
	out := make([]*model.Unit, 0, len(m.shown))
	m.tree.indent = 0
	narrowed := m.filter.Active() || m.scope != (Scope{})
	if narrowed {
		m.markPaths()
	}
	var visit func(parent *tree.Node)
	visit = func(parent *tree.Node) {
		for _, n := range m.siblings(parent) {
			if narrowed && !m.tree.kept[n.Index] {
				continue
			}
			out = append(out, n.Unit)
			m.tree.indent = max(m.tree.indent, 2*n.Depth+2)
			if narrowed || m.open(n) {
				visit(n)
			}
		}
	}
	visit(nil)
	return out
}

// markPaths marks in kept the units the scope and filter show and every
// parent above them. The flat list's top step holds exactly those units,
// kept up to date keystroke by keystroke: walking up from them costs the
// matches, not the fleet.
func (m *Model) markPaths() {
	f := m.tree.forest
	m.tree.kept = slices.Grow(m.tree.kept[:0], f.Len())[:f.Len()]
	clear(m.tree.kept)
	for _, u := range m.steps[len(m.steps)-1].units {
		n, ok := f.NodeOf(u)
		for ok && n != nil && !m.tree.kept[n.Index] {
			m.tree.kept[n.Index] = true
			n = n.Parent
		}
	}
}

// stateUrgency ranks a summary's worst state like urgency ranks a unit.
var stateUrgency = map[tree.State]int{
	tree.Stuck: 0, tree.Failed: 1, tree.Blocked: 2, tree.Awaiting: 3, tree.Running: 4, tree.Degraded: 5, tree.Drifted: 5,
}

func treeUrgency(n *tree.Node) int {
	r := urgency(n.Unit)
	if n.Summary.Total > 0 {
		if s, ok := stateUrgency[n.Summary.Worst()]; ok {
			r = min(r, s)
		}
	}
	return r
}

// Targets is what a key that acts in bulk acts on from the row under the
// cursor in the tree: the parent's children that the filter and scope
// show, with ok false on a row that is no parent (or in the flat list).
func (m *Model) Targets() (parent *model.Unit, children []*model.Unit, ok bool) {
	u := m.Selected()
	if !m.tree.on || u == nil {
		return nil, nil, false
	}
	n, found := m.tree.forest.Node(u.Key)
	if !found || len(n.Children) == 0 {
		return nil, nil, false
	}
	for _, c := range n.Children {
		if m.matches(c.Unit) {
			children = append(children, c.Unit)
		}
	}
	return u, children, true
}

// treePrefix is the indentation and fold glyph in front of a row's name.
func (m *Model) treePrefix(u *model.Unit) (prefix, summary string) {
	if !m.tree.on {
		return "", ""
	}
	n, ok := m.tree.forest.Node(u.Key)
	if !ok {
		return "", ""
	}
	glyph := "  "
	if len(n.Children) > 0 {
		glyph = "▸ "
		if m.open(n) || m.filter.Active() || m.scope != (Scope{}) {
			glyph = "▾ "
		}
		summary = n.Summary.String()
	}
	return indent(n.Depth) + glyph, summary
}

func indent(depth int) string {
	const spaces = "                                "
	return spaces[:min(2*depth, len(spaces))]
}

// ParentsOf lists the units a unit sits under (the first is where the
// tree shows it).
func (m *Model) ParentsOf(k model.Key) []model.Key { return m.tree.forest.ParentsOf(k) }

// treeIndent is the room the tree's prefixes take in the name column.
func (m *Model) treeIndent() int {
	if !m.tree.on {
		return 0
	}
	return m.tree.indent
}
