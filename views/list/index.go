package list

import (
	"cmp"
	"math"
	"slices"

	"github.com/driftdeck/driftdeck/backend/model"
)

// The list keeps what a keystroke or a batch needs so that neither has to
// go through the whole fleet again:
//
//   - steps[0] is every unit in the scope, in the sort order, with the text
//     each is searched by beside it;
//   - each further step is what a filter typed on top of the one before
//     left (typing more of a word searches only the last step; taking a
//     character back returns to the step that had it, without searching);
//   - a batch that changes a few units takes each out of every step and puts
//     the new one back where the order and the filters place it, instead of
//     filtering and sorting 6,000 units again.
//
// Adding or removing units, and a new scope or sort, rebuild the steps (a
// sort shown before takes back its kept base: keptorders.go); in the tree
// a new sort does not: there the steps are only the set of units the
// filter shows (see markPaths), in the order they were built in.

// filterStep is the list as one filter left it.
type filterStep struct {
	filter Filter
	units  []*model.Unit
	hay    []string // the haystack of each of units
}

// rebuild computes steps[0] from every unit, then the active filter on it.
func (m *Model) rebuild() {
	var inScope []int32 // positions in all; nil: every unit
	if m.scope != (Scope{}) {
		inScope = []int32{}
		for i, u := range m.all {
			if m.scope.Contains(u) {
				inScope = append(inScope, int32(i))
			}
		}
	}
	order := sortOrder(m.keys, inScope, m.sort)
	base := filterStep{units: make([]*model.Unit, len(order)), hay: make([]string, len(order))}
	for i, at := range order {
		base.units[i], base.hay[i] = m.all[at], m.hays[at]
	}
	m.stepsSort = m.sort
	m.steps = []filterStep{base}
	if m.filter.Active() {
		m.steps = append(m.steps, search(base, m.filter))
	}
	m.shown = m.steps[len(m.steps)-1].units
}

// search is the units of from that f matches, in from's order. The matches
// are counted in a list of positions first, which holds no pointers: growing
// the result lists as they filled copied their pointers again at each
// growth, at a write barrier each while the collector ran.
func search(from filterStep, f Filter) filterStep {
	var found []int32
	for i, h := range from.hay {
		if f.Match(h) {
			found = append(found, int32(i))
		}
	}
	out := filterStep{filter: f, units: make([]*model.Unit, len(found)), hay: make([]string, len(found))}
	for i, at := range found {
		out.units[i], out.hay[i] = from.units[at], from.hay[at]
	}
	return out
}

// applyFilter makes f the top step: the step that had the same text, or a
// search of the deepest step f narrows (the base when none).
func (m *Model) applyFilter(f Filter) {
	keep := 1
	for i := len(m.steps) - 1; i >= 1; i-- {
		s := m.steps[i].filter
		if s.Text == f.Text || f.narrows(s) {
			keep = i + 1
			break
		}
	}
	m.steps = m.steps[:keep]
	if top := m.steps[keep-1]; top.filter.Text != f.Text && f.Active() {
		m.steps = append(m.steps, search(top, f))
	}
	m.shown = m.steps[len(m.steps)-1].units
}

// replace swaps one unit for its new version in every step, each where the
// order puts it; nil old adds, nil new removes. The orders kept for other
// sorts take it when they are shown again (see keptorders.go).
func (m *Model) replace(old, new *model.Unit, hay string) {
	inside := new != nil && m.scope.Contains(new)
	compare := orderOf(m.stepsSort)
	for i := range m.steps {
		s := &m.steps[i]
		if i > 0 {
			inside = inside && s.filter.Match(hay)
		}
		s.replace(old, new, hay, inside, compare)
	}
	m.shown = m.steps[len(m.steps)-1].units
	m.keepReplacement(old, new, hay)
}

// replace swaps old for new in s, each where compare places it; inside is
// whether new belongs in s.
func (s *filterStep) replace(old, new *model.Unit, hay string, inside bool, compare func(a, b *model.Unit) int) {
	at := -1
	if old != nil {
		// The step is in the order compare gives, old by its own fields:
		// the unit of old's key is found without a walk over the fleet.
		if j, found := slices.BinarySearchFunc(s.units, old, compare); found {
			at = j
		}
	}
	switch {
	case at >= 0 && inside:
		s.move(at, new, hay, compare)
	case at >= 0:
		s.units = slices.Delete(s.units, at, at+1)
		s.hay = slices.Delete(s.hay, at, at+1)
	case inside:
		j, _ := slices.BinarySearchFunc(s.units, new, compare)
		s.units = slices.Insert(s.units, j, new)
		s.hay = slices.Insert(s.hay, j, hay)
	}
}

// move puts new where the order places it in place of the unit at index
// at, shifting only the units between the two places: a status change
// mostly moves a unit a short way or not at all, and shifting the whole
// tail of 70,000 pointers twice (a delete, then an insert) cost each batch
// a write barrier a pointer whenever the collector was running.
func (s *filterStep) move(at int, new *model.Unit, hay string, compare func(a, b *model.Unit) int) {
	// s.units is in order with the old unit at at: the place found for new
	// counts it, one too far when it is past at.
	to, _ := slices.BinarySearchFunc(s.units, new, compare)
	if to > at {
		to--
	}
	shift(s.units, at, to)
	shift(s.hay, at, to)
	s.units[to], s.hay[to] = new, hay
}

// shift moves the elements between from and to one place towards from,
// freeing index to.
func shift[T any](xs []T, from, to int) {
	if to > from {
		copy(xs[from:to], xs[from+1:to+1])
	} else if to < from {
		copy(xs[to+1:from+1], xs[to:from])
	}
}

// orderOf is the order sortOrder gives mode, as a comparison of units
// (its input is in key order: ties go by key).
func orderOf(mode SortMode) func(a, b *model.Unit) int {
	switch mode {
	case ByState:
		return byUrgency
	case ByAge:
		return byAge
	}
	return byKey
}

func byKey(a, b *model.Unit) int { return model.CompareKeys(a.Key, b.Key) }

func byUrgency(a, b *model.Unit) int {
	if c := cmp.Compare(urgency(a), urgency(b)); c != 0 {
		return c
	}
	return byKey(a, b)
}

func byAge(a, b *model.Unit) int {
	if c := cmp.Compare(ageOf(a), ageOf(b)); c != 0 {
		return c
	}
	return byKey(a, b)
}

// ageOf is what ByAge sorts on: since when the unit is in its state, the
// undated last.
// undatedSince is ageOf a unit never dated: after every time.
const undatedSince = math.MaxInt64

func ageOf(u *model.Unit) int64 {
	if u.RunSince.IsZero() {
		return undatedSince
	}
	return u.RunSince.UnixNano()
}
