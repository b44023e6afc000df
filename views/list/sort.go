package list

import (
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

// sortUnits orders units in place. The input is in key order already (the
// store's snapshot), so ByName has nothing to do.
func sortUnits(units []*model.Unit, mode SortMode) {
	switch mode {
	case ByState:
		slices.SortStableFunc(units, func(a, b *model.Unit) int { return urgency(a) - urgency(b) })
	case ByAge:
		slices.SortStableFunc(units, func(a, b *model.Unit) int {
			switch {
			case a.RunSince.Equal(b.RunSince):
				return model.CompareKeys(a.Key, b.Key)
			case a.RunSince.IsZero():
				return 1
			case b.RunSince.IsZero():
				return -1
			case a.RunSince.Before(b.RunSince):
				return -1
			}
			return 1
		})
	}
}
