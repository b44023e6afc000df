package list

import (
	"cmp"
	"math"
	"slices"

	"github.com/driftdeck/driftdeck/backend/model"
)

// SortMode orders the list.
type SortMode int

const (
	ByName  SortMode = iota // context, engine, namespace, name
	ByState                 // most urgent first
	ByAge                   // longest in its state first
)

func (s SortMode) String() string {
	switch s {
	case ByState:
		return "state"
	case ByAge:
		return "age"
	}
	return "name"
}

// ParseSort accepts the names String returns.
func ParseSort(s string) (SortMode, bool) {
	for m := ByName; m <= ByAge; m++ {
		if m.String() == s {
			return m, true
		}
	}
	return 0, false
}

// urgency ranks run states for ByState.
func urgency(u *model.Unit) int {
	switch u.Run {
	case model.Stuck:
		return 0
	case model.Failed:
		return 1
	case model.BlockedByWindow:
		return 2
	case model.AwaitingApproval:
		return 3
	case model.Running:
		return 4
	}
	if u.Sync == model.Drifted || u.Health == model.Degraded {
		return 5
	}
	return 6
}

// sortUnits returns units in the order of mode, in a new slice (the steps
// are changed in place; units is not). The input is in key order already
// (the store's snapshot), so ByName only copies it. It runs on
// every keystroke that changes what is shown, over the whole fleet: ByState
// is a counting sort over the few urgency ranks, which keeps key order within
// a rank in one pass, and ByAge sorts copied times with the key order as
// tie-break. Neither sorts pointers: while the collector runs, every pointer
// moved costs a write barrier, and a sort moves each many times.
func sortUnits(units []*model.Unit, mode SortMode) []*model.Unit {
	switch mode {
	case ByState:
		return sortByUrgency(units)
	case ByAge:
		return sortByAge(units)
	}
	return slices.Clone(units)
}

// sortByAge sorts on copies of the times, read once, with the key order as
// the tie-break: comparing through the unit pointers missed the cache on
// every comparison.
func sortByAge(units []*model.Unit) []*model.Unit {
	type aged struct {
		since int64 // Unix nanoseconds; never dated sorts last
		pos   int   // position in key order
	}
	keys := make([]aged, len(units))
	for i, u := range units {
		keys[i] = aged{since: math.MaxInt64, pos: i}
		if !u.RunSince.IsZero() {
			keys[i].since = u.RunSince.UnixNano()
		}
	}
	slices.SortFunc(keys, func(a, b aged) int {
		if c := cmp.Compare(a.since, b.since); c != 0 {
			return c
		}
		return a.pos - b.pos
	})
	sorted := make([]*model.Unit, len(units))
	for i, k := range keys {
		sorted[i] = units[k.pos]
	}
	return sorted
}

const urgencyRanks = 7 // urgency returns 0..6

func sortByUrgency(units []*model.Unit) []*model.Unit {
	var start [urgencyRanks + 1]int
	for _, u := range units {
		start[urgency(u)+1]++
	}
	for r := 1; r <= urgencyRanks; r++ {
		start[r] += start[r-1]
	}
	sorted := make([]*model.Unit, len(units))
	for _, u := range units {
		r := urgency(u)
		sorted[start[r]] = u
		start[r]++
	}
	return sorted
}
