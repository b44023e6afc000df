package list

import (
	"cmp"
	"slices"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/tree"
)

// treeOrder keeps the tree's siblings in the order of one sort mode: each
// parent's children, and the roots, sorted the first time they are laid
// out, then kept sorted across batches by moving only the nodes a batch
// touched (ADR 0020). Sorting the 2,250 roots and every open parent's
// children again on each keystroke and each batch was most of their time.
type treeOrder struct {
	rank func(*tree.Node) int64
	// sorted holds the siblings under each parent laid out so far; the
	// roots are under nil.
	sorted map[*tree.Node][]*tree.Node
}

func newTreeOrder(mode SortMode) *treeOrder {
	rank := func(n *tree.Node) int64 { return int64(treeUrgency(n)) }
	if mode == ByAge {
		rank = func(n *tree.Node) int64 { return ageOf(n.Unit) }
	}
	return &treeOrder{rank: rank, sorted: map[*tree.Node][]*tree.Node{}}
}

// siblings is inKeys (parent's children, or the roots, in key order) in
// this order.
func (o *treeOrder) siblings(parent *tree.Node, inKeys []*tree.Node) []*tree.Node {
	if s, ok := o.sorted[parent]; ok {
		return s
	}
	type ranked struct {
		rank int64
		pos  int // in key order: the tie-break
	}
	keys := make([]ranked, len(inKeys))
	for i, n := range inKeys {
		keys[i] = ranked{o.rank(n), i}
	}
	slices.SortFunc(keys, func(a, b ranked) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		return a.pos - b.pos
	})
	s := make([]*tree.Node, len(inKeys))
	for i, k := range keys {
		s[i] = inKeys[k.pos]
	}
	o.sorted[parent] = s
	return s
}

// compare orders two siblings as siblings sorts them.
func (o *treeOrder) compare(a, b *tree.Node) int {
	if c := cmp.Compare(o.rank(a), o.rank(b)); c != 0 {
		return c
	}
	return model.CompareKeys(a.Unit.Key, b.Unit.Key)
}

// move puts the nodes a batch touched (tree.Forest.Update) where their new
// units and summaries place them among their siblings. All of a parent's
// touched children leave before any comes back, so that each is placed by
// a binary search among siblings that are all in order.
func (o *treeOrder) move(touched []*tree.Node) {
	byParent := map[*tree.Node][]*tree.Node{}
	for _, n := range touched {
		if _, laidOut := o.sorted[n.Parent]; laidOut {
			byParent[n.Parent] = append(byParent[n.Parent], n)
		}
	}
	for parent, moving := range byParent {
		leaving := make(map[*tree.Node]bool, len(moving))
		for _, n := range moving {
			leaving[n] = true
		}
		s := slices.DeleteFunc(o.sorted[parent], func(n *tree.Node) bool { return leaving[n] })
		for _, n := range moving {
			i, _ := slices.BinarySearchFunc(s, n, o.compare)
			s = slices.Insert(s, i, n)
		}
		o.sorted[parent] = s
	}
}
