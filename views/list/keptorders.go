package list

import (
	"slices"

	"github.com/driftdeck/driftdeck/backend/model"
)

// A sort key sorted the whole scope again and gathered its units and
// haystacks into new lists by the new order's positions: at 70,000 units a
// few milliseconds of scattered reads and 2-4 MB a key, while the
// collector marked a 250 MB heap beside it (the sort keys made the list's
// keystroke p99). The list keeps the base step of each order it leaves
// instead, and notes the units the batches replace after; a sort key back
// to a kept order merges those into it in one pass (ADR 0051).

// keptOrder is the base step of a sort no longer shown, and the units
// replaced since it was left.
type keptOrder struct {
	base  filterStep
	since map[model.Key]replacement
}

// replacement is the unit the kept base holds for a key (nil: none, the
// unit was added) and its newest version (nil: removed).
type replacement struct {
	old, new *model.Unit
	hay      string
}

// keepOrder keeps the base of steps, in mode's order, for a later sort key
// back to it.
func (m *Model) keepOrder(mode SortMode, steps []filterStep) {
	if steps != nil {
		m.keptOrders[mode] = &keptOrder{base: steps[0], since: map[model.Key]replacement{}}
	}
}

// keepReplacement notes a replaced unit in every kept order. An order
// whose replaced units pass a quarter of it is dropped: sorting again costs
// about what merging them would, and they would stay in memory until then.
func (m *Model) keepReplacement(old, new *model.Unit, hay string) {
	key := keyOf(old, new)
	for mode, k := range m.keptOrders {
		if r, ok := k.since[key]; ok {
			k.since[key] = replacement{r.old, new, hay}
			continue
		}
		if len(k.since) >= len(k.base.units)/4+16 {
			delete(m.keptOrders, mode)
			continue
		}
		k.since[key] = replacement{old, new, hay}
	}
}

func keyOf(old, new *model.Unit) model.Key {
	if old != nil {
		return old.Key
	}
	return new.Key
}

// takeKeptOrder makes the kept order of mode the steps' base, with the
// units replaced since merged in, the filter searched on it, and keeps the
// base it replaces. It reports false when mode's order is not kept.
func (m *Model) takeKeptOrder(mode SortMode) bool {
	k := m.keptOrders[mode]
	if k == nil || m.steps == nil {
		return false
	}
	delete(m.keptOrders, mode)
	m.keepOrder(m.stepsSort, m.steps)
	k.base.merge(k.since, func(u *model.Unit) bool { return m.scope.Contains(u) }, orderOf(mode))
	m.stepsSort = mode
	m.steps = []filterStep{k.base}
	if m.filter.Active() {
		m.steps = append(m.steps, search(k.base, m.filter))
	}
	m.shown = m.steps[len(m.steps)-1].units
	return true
}

// merge takes the replaced units into s, which is in compare's order: the
// old ones out, then the new ones that belong inside in, each time moving
// only the part of s past the first place touched, run by run.
func (s *filterStep) merge(since map[model.Key]replacement, inside func(*model.Unit) bool, compare func(a, b *model.Unit) int) {
	var drop []int
	var add []replacement
	for _, r := range since {
		if r.old != nil {
			if at, found := slices.BinarySearchFunc(s.units, r.old, compare); found {
				drop = append(drop, at)
			}
		}
		if r.new != nil && inside(r.new) {
			add = append(add, r)
		}
	}
	if len(drop) == 0 && len(add) == 0 {
		return
	}
	slices.Sort(drop)
	slices.SortFunc(add, func(a, b replacement) int { return compare(a.new, b.new) })
	// Take the dropped out, moving the runs between them down. Runs are
	// copied whole: a merge that compared each kept unit with the next one
	// to add read 70,000 units' keys.
	w := len(s.units)
	if len(drop) > 0 {
		w = drop[0]
		for d, at := range drop {
			next := len(s.units)
			if d+1 < len(drop) {
				next = drop[d+1]
			}
			copy(s.hay[w:], s.hay[at+1:next])
			w += copy(s.units[w:], s.units[at+1:next])
		}
	}
	// Then put the added in, each where binary search places it, moving
	// the runs between them up from the back.
	at := make([]int, len(add))
	for j, r := range add {
		at[j], _ = slices.BinarySearchFunc(s.units[:w], r.new, compare)
	}
	n := w + len(add)
	if n < len(s.units) {
		// The places past the new end hold units no longer in s.
		clear(s.units[n:])
		clear(s.hay[n:])
	}
	s.units = slices.Grow(s.units[:w], len(add))[:n]
	s.hay = slices.Grow(s.hay[:w], len(add))[:n]
	end := w
	for j := len(add) - 1; j >= 0; j-- {
		copy(s.units[at[j]+j+1:], s.units[at[j]:end])
		copy(s.hay[at[j]+j+1:], s.hay[at[j]:end])
		s.units[at[j]+j], s.hay[at[j]+j] = add[j].new, add[j].hay
		end = at[j]
	}
}
