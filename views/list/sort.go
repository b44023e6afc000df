package list

import (
	"math"

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

// sortKey is what the sorts read of a unit, kept beside it in key order
// (Model.keys): a sort over 70,000 units that read each through its
// pointer spent most of its time waiting for memory.
type sortKey struct {
	rank  uint8 // urgency
	since int64 // ageOf
}

func sortKeyOf(u *model.Unit) sortKey { return sortKey{rank: uint8(urgency(u)), since: ageOf(u)} }

// sortOrder is the order of mode over the positions given (every position
// of keys when nil), as positions. The keys are in key order already (the
// store's snapshot), so ByName has nothing to sort. It runs on every
// keystroke that changes what is shown, over the whole fleet: ByState is a
// counting sort over the few urgency ranks, which keeps key order within a
// rank in one pass, and ByAge radix sorts (time, position) pairs, keeping key
// order among ties. Neither sorts pointers: while the collector runs,
// every pointer moved costs a write barrier, and a sort moves each many
// times.
func sortOrder(keys []sortKey, at []int32, mode SortMode) []int32 {
	if at == nil {
		at = make([]int32, len(keys))
		for i := range at {
			at[i] = int32(i)
		}
	}
	switch mode {
	case ByState:
		return sortByUrgency(keys, at)
	case ByAge:
		sortByAge(keys, at)
	}
	return at
}

// sortByAge sorts at (positions in key order, ascending, as sortOrder
// makes them) by time in state, the undated last, ties by key. The dated
// are radix sorted by their time after the earliest, a byte a pass from
// the least significant, each pass stable, so that ties keep key order; the
// passes stop at the widest time's top byte. At 70,000 units the sort
// key's refresh took 10.0-11.0 ms with a comparison sort, 4.8-6.3 ms so.
func sortByAge(keys []sortKey, at []int32) {
	type aged struct {
		since uint64 // keys[pos].since, its sign bit flipped: unsigned order is signed order
		pos   int32
	}
	var undated []int32
	from := make([]aged, 0, len(at))
	earliest, latest := uint64(math.MaxUint64), uint64(0)
	for _, pos := range at {
		if keys[pos].since == undatedSince {
			undated = append(undated, pos)
			continue
		}
		x := aged{since: uint64(keys[pos].since) ^ 1<<63, pos: pos}
		earliest, latest = min(earliest, x.since), max(latest, x.since)
		from = append(from, x)
	}
	to := make([]aged, len(from))
	var next [1<<8 + 1]int // next[d+1] counts digit d; summed, next[d] is where d's run starts
	for shift := 0; shift < 64 && (latest-earliest)>>shift != 0; shift += 8 {
		clear(next[:])
		for _, x := range from {
			next[int(uint8((x.since-earliest)>>shift))+1]++
		}
		for d := 1; d < len(next); d++ {
			next[d] += next[d-1]
		}
		for _, x := range from {
			d := uint8((x.since - earliest) >> shift)
			to[next[d]] = x
			next[d]++
		}
		from, to = to, from
	}
	for i, x := range from {
		at[i] = x.pos
	}
	copy(at[len(from):], undated)
}

const urgencyRanks = 7 // urgency returns 0..6

func sortByUrgency(keys []sortKey, at []int32) []int32 {
	var start [urgencyRanks + 1]int
	for _, pos := range at {
		start[keys[pos].rank+1]++
	}
	for r := 1; r <= urgencyRanks; r++ {
		start[r] += start[r-1]
	}
	sorted := make([]int32, len(at))
	for _, pos := range at {
		r := keys[pos].rank
		sorted[start[r]] = pos
		start[r]++
	}
	return sorted
}
