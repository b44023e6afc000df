package tree

import (
	"slices"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Update takes a new snapshot of the same model (key order) and returns
// its forest. When the same units are there and none of them changed its
// parents or children (a status change, the usual batch), the structure is
// kept and changed in place: the changed units' nodes take the new units
// and only their ancestors' summaries are counted again, so a batch costs
// a pointer comparison per unit, not a build. Otherwise it builds anew.
// The forest keeps units to compare the next snapshot with: neither may be
// changed once handed over.
//
// touched are the nodes changed in place: those of the changed units and
// their ancestors, the only nodes whose unit or summary may differ, so that
// an order kept over the nodes needs to move only them. It is nil when the
// forest was built anew (a different forest).
func (f *Forest) Update(units []*model.Unit) (_ *Forest, touched []*Node) {
	if f == nil || len(units) != len(f.nodes) {
		return Build(units), nil
	}
	type change struct {
		n *Node
		u *model.Unit
	}
	var changes []change
	for i, u := range units {
		if f.units[i] == u {
			continue
		}
		n, ok := f.nodes[u.Key]
		if !ok {
			return Build(units), nil
		}
		if n.Unit == u {
			continue
		}
		if !slices.Equal(n.Unit.Parents, u.Parents) || !slices.Equal(n.Unit.Children, u.Children) {
			return Build(units), nil
		}
		changes = append(changes, change{n, u})
	}
	var ancestors []*Node
	seen := map[*Node]bool{}
	changed := make(map[*Node]bool, len(changes))
	for _, c := range changes {
		delete(f.byUnit, c.n.Unit)
		c.n.Unit, f.byUnit[c.u] = c.u, c.n
		touched = append(touched, c.n)
		changed[c.n] = true
		for p := c.n.Parent; p != nil && !seen[p]; p = p.Parent {
			seen[p] = true
			ancestors = append(ancestors, p)
		}
	}
	// Deepest first: a parent's count reads its children's.
	slices.SortFunc(ancestors, func(a, b *Node) int { return b.Depth - a.Depth })
	for _, p := range ancestors {
		p.recount()
	}
	f.units = units
	for _, p := range ancestors {
		if !changed[p] {
			touched = append(touched, p)
		}
	}
	return f, touched
}

// recount sums n's summary from its children's.
func (n *Node) recount() {
	n.Summary = Summary{}
	for _, c := range n.Children {
		n.Summary.add(StateOf(c.Unit))
		n.Summary.merge(c.Summary)
	}
}
