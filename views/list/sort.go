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

// sortOrder is the order of mode over the units at the positions given (all
// of them when nil), as positions in units. The units are in key order
// already (the store's snapshot), so ByName has nothing to sort. It runs on
// every keystroke that changes what is shown, over the whole fleet: ByState
// is a counting sort over the few urgency ranks, which keeps key order within
// a rank in one pass, and ByAge sorts copied times with the key order as
// tie-break. Neither sorts pointers: while the collector runs, every pointer
// moved costs a write barrier, and a sort moves each many times.
func sortOrder(units []*model.Unit, at []int32, mode SortMode) []int32 {
	if at == nil {
		at = make([]int32, len(units))
		for i := range at {
			at[i] = int32(i)
		}
	}
	switch mode {
	case ByState:
		return sortByUrgency(units, at)
	case ByAge:
		sortByAge(units, at)
	}
	return at
}

// sortByAge sorts at on copies of the times, read once, with the key order
// as the tie-break: comparing through the unit pointers missed the cache on
// every comparison.
func sortByAge(units []*model.Unit, at []int32) {
	type aged struct {
		since int64 // Unix nanoseconds; never dated sorts last
		pos   int32 // position in key order
	}
	keys := make([]aged, len(at))
	for i, pos := range at {
		keys[i] = aged{since: math.MaxInt64, pos: pos}
		if u := units[pos]; !u.RunSince.IsZero() {
			keys[i].since = u.RunSince.UnixNano()
		}
	}
	slices.SortFunc(keys, func(a, b aged) int {
		if c := cmp.Compare(a.since, b.since); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	for i, k := range keys {
		at[i] = k.pos
	}
}

const urgencyRanks = 7 // urgency returns 0..6

func sortByUrgency(units []*model.Unit, at []int32) []int32 {
	var start [urgencyRanks + 1]int
	ranks := make([]uint8, len(at))
	for i, pos := range at {
		r := urgency(units[pos])
		ranks[i] = uint8(r)
		start[r+1]++
	}
	for r := 1; r <= urgencyRanks; r++ {
		start[r] += start[r-1]
	}
	sorted := make([]int32, len(at))
	for i, pos := range at {
		r := ranks[i]
		sorted[start[r]] = pos
		start[r]++
	}
	return sorted
}
