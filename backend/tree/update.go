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
func (f *Forest) Update(units []*model.Unit) *Forest {
	if f == nil || len(units) != len(f.nodes) {
		return Build(units)
	}
	type change struct {
		n *Node
		u *model.Unit
	}
	var changes []change
	for _, u := range units {
		n, ok := f.nodes[u.Key]
		if !ok {
			return Build(units)
		}
		if n.Unit == u {
			continue
		}
		if !slices.Equal(n.Unit.Parents, u.Parents) || !slices.Equal(n.Unit.Children, u.Children) {
			return Build(units)
		}
		changes = append(changes, change{n, u})
	}
	var ancestors []*Node
	seen := map[*Node]bool{}
	for _, c := range changes {
		c.n.Unit = c.u
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
	return f
}

// recount sums n's summary from its children's.
func (n *Node) recount() {
	n.Summary = Summary{}
	for _, c := range n.Children {
		n.Summary.add(StateOf(c.Unit))
		n.Summary.merge(c.Summary)
	}
}
