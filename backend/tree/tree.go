// Package tree arranges units into the forest the list and `driftdeck tree`
// show: Applications under the ApplicationSet that owns them or the app of
// apps that manages them, Stacks under their prerequisites, Flux objects
// under what they depend on. A unit sits under its first parent present in
// the model (ADR 0013); one whose parents are all missing is a root, and a
// cycle of parents is cut so that no walk ever loops.
package tree

import (
	"github.com/driftdeck/driftdeck/backend/model"
)

// Node is one unit in the forest.
type Node struct {
	Unit     *model.Unit
	Parent   *Node   // nil for a root
	Children []*Node // in key order
	Depth    int
	// Index is the unit's place in the snapshot the forest was built from,
	// kept while the forest is: a mark per node fits in a slice of Len.
	Index int
	// Also are the unit's other parents present in the model, which it is
	// not shown under.
	Also []model.Key
	// Summary counts the states of every unit below this one.
	Summary Summary
}

// Forest is the model arranged as trees, built from one snapshot and kept
// current by Update. Not safe for concurrent use.
type Forest struct {
	Roots []*Node // in key order
	// units is the snapshot the nodes hold, in key order: the next one is
	// compared with it pointer by pointer.
	units []*model.Unit
	nodes map[model.Key]*Node
	// byUnit finds the node holding a unit of the snapshot without
	// hashing its key.
	byUnit map[*model.Unit]*Node
	// alsoBelow inverts the nodes' Also: the units that name a unit as a
	// parent but are shown under another.
	alsoBelow map[model.Key][]model.Key
}

// Build arranges units (in key order) into a forest.
func Build(units []*model.Unit) *Forest {
	f := &Forest{units: units, nodes: make(map[model.Key]*Node, len(units)), byUnit: make(map[*model.Unit]*Node, len(units))}
	for i, u := range units {
		n := &Node{Unit: u, Index: i}
		f.nodes[u.Key], f.byUnit[u] = n, n
	}
	// Declared parents of each unit, in order: its own (owner,
	// prerequisites, dependsOn), then the apps of apps that list it.
	declared := make(map[model.Key][]model.Key)
	for _, u := range units {
		for _, p := range u.Parents {
			if p != u.Key {
				declared[u.Key] = appendNew(declared[u.Key], p)
			}
		}
	}
	for _, u := range units {
		for _, c := range u.Children {
			if _, ok := f.nodes[c]; ok && c != u.Key {
				declared[c] = appendNew(declared[c], u.Key)
			}
		}
	}
	for _, u := range units {
		n := f.nodes[u.Key]
		for _, p := range declared[u.Key] {
			pn, ok := f.nodes[p]
			if !ok {
				continue
			}
			if n.Parent == nil {
				n.Parent = pn
			} else {
				n.Also = append(n.Also, p)
			}
		}
	}
	f.cutCycles(units)
	for _, u := range units {
		n := f.nodes[u.Key]
		if n.Parent == nil {
			f.Roots = append(f.Roots, n)
		} else {
			n.Parent.Children = append(n.Parent.Children, n)
		}
	}
	for _, r := range f.Roots {
		r.finish(0)
	}
	f.alsoBelow = map[model.Key][]model.Key{}
	for _, u := range units {
		for _, p := range f.nodes[u.Key].Also {
			f.alsoBelow[p] = append(f.alsoBelow[p], u.Key)
		}
	}
	return f
}

// cutCycles makes the first unit (in key order) of every cycle of parents a
// root: a cycle has no top, so it starts where the key order does.
func (f *Forest) cutCycles(units []*model.Unit) {
	const (
		unseen = iota
		onPath
		done
	)
	state := make(map[*Node]uint8, len(f.nodes))
	for _, u := range units {
		var path []*Node
		n := f.nodes[u.Key]
		for n != nil && state[n] == unseen {
			state[n] = onPath
			path = append(path, n)
			n = n.Parent
		}
		if n != nil && state[n] == onPath {
			// n starts a cycle: path from n to its end.
			i := len(path) - 1
			for path[i] != n {
				i--
			}
			first := path[i]
			for _, c := range path[i:] {
				if model.CompareKeys(c.Unit.Key, first.Unit.Key) < 0 {
					first = c
				}
			}
			first.Also = append([]model.Key{first.Parent.Unit.Key}, first.Also...)
			first.Parent = nil
		}
		for _, p := range path {
			state[p] = done
		}
	}
}

// finish sets depths and summaries below n.
func (n *Node) finish(depth int) {
	n.Depth = depth
	for _, c := range n.Children {
		c.finish(depth + 1)
	}
	n.recount()
}

func appendNew(ks []model.Key, k model.Key) []model.Key {
	for _, x := range ks {
		if x == k {
			return ks
		}
	}
	return append(ks, k)
}

// Node returns the node of a unit.
func (f *Forest) Node(k model.Key) (*Node, bool) {
	n, ok := f.nodes[k]
	return n, ok
}

// NodeOf returns the node holding u, a unit of the forest's snapshot (the
// same pointer).
func (f *Forest) NodeOf(u *model.Unit) (*Node, bool) {
	n, ok := f.byUnit[u]
	return n, ok
}

// Len is the number of units in the forest.
func (f *Forest) Len() int { return len(f.nodes) }

// ParentsOf lists every parent of a unit present in the model: the one it
// is shown under first, then the others.
func (f *Forest) ParentsOf(k model.Key) []model.Key {
	n, ok := f.nodes[k]
	if !ok {
		return nil
	}
	var out []model.Key
	if n.Parent != nil {
		out = append(out, n.Parent.Unit.Key)
	}
	return append(out, n.Also...)
}

// AlsoBelow lists the units that name k as a parent but are shown under
// another (their first) parent, in key order.
func (f *Forest) AlsoBelow(k model.Key) []model.Key { return f.alsoBelow[k] }

// Walk visits n and every node below it, depth first, children in order.
func (n *Node) Walk(visit func(*Node)) {
	visit(n)
	for _, c := range n.Children {
		c.Walk(visit)
	}
}

// ChildUnits are the units one level below n.
func (n *Node) ChildUnits() []*model.Unit {
	out := make([]*model.Unit, len(n.Children))
	for i, c := range n.Children {
		out[i] = c.Unit
	}
	return out
}
