package list

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// sortOrder must order exactly as a stable sort by urgency (or by time in
// state, ties by key) of the key-ordered input would: on a fleet with every
// rank many times over, equal times, and units never dated.
func TestSortMatchesAStableSortOfTheKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	runs := []model.RunState{model.Idle, model.Running, model.Stuck, model.Failed, model.BlockedByWindow, model.AwaitingApproval}
	var units []*model.Unit
	for i := range 3000 {
		x := u(model.EngineArgoCD, "ns", "", runs[rng.IntN(len(runs))])
		x.Key.Name = string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
		if rng.IntN(3) == 0 {
			x.Sync = model.Drifted
		}
		switch rng.IntN(4) {
		case 0:
			x.RunSince = time.Time{}
		case 1:
			x.RunSince = now // many equal times
		default:
			x.RunSince = now.Add(-time.Duration(rng.IntN(1000)) * time.Second)
		}
		units = append(units, x)
	}
	slices.SortFunc(units, func(a, b *model.Unit) int { return model.CompareKeys(a.Key, b.Key) })

	byState := slices.Clone(units)
	slices.SortStableFunc(byState, func(a, b *model.Unit) int { return urgency(a) - urgency(b) })
	byAge := slices.Clone(units)
	slices.SortStableFunc(byAge, func(a, b *model.Unit) int {
		switch {
		case a.RunSince.Equal(b.RunSince):
			return 0
		case a.RunSince.IsZero():
			return 1
		case b.RunSince.IsZero():
			return -1
		case a.RunSince.Before(b.RunSince):
			return -1
		}
		return 1
	})
	for mode, want := range map[SortMode][]*model.Unit{ByState: byState, ByAge: byAge, ByName: units} {
		var got []*model.Unit
		keys := make([]sortKey, len(units))
		for i, x := range units {
			keys[i] = sortKeyOf(x)
		}
		for _, at := range sortOrder(keys, nil, mode) {
			got = append(got, units[at])
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("sort %s: position %d holds %s; want %s", mode, i, got[i].Key.Name, want[i].Key.Name)
			}
		}
	}
}
