package ui

import (
	"slices"

	"github.com/driftdeck/driftdeck/backend/model"
)

// unitsByKey is the last batch's units in key order, as the store hands
// them: a unit is found by binary search, so that taking a batch costs no
// index (a map of 6,000 keys rebuilt for every batch was most of a batch's
// time, and half its garbage).
type unitsByKey []*model.Unit

// get is the unit with key k, nil when the batch has none.
func (us unitsByKey) get(k model.Key) *model.Unit {
	i, found := slices.BinarySearchFunc(us, k, func(u *model.Unit, k model.Key) int { return model.CompareKeys(u.Key, k) })
	if !found {
		return nil
	}
	return us[i]
}

// inKeyOrder is units as a unitsByKey: the store's batches are in key
// order already and differ from the last one (prev) in a few units
// (checking costs a pointer comparison per unit, no garbage); one made
// otherwise is sorted in a copy.
func inKeyOrder(units []*model.Unit, prev unitsByKey) unitsByKey {
	if model.InKeyOrderSince(units, prev) {
		return units
	}
	sorted := slices.Clone(units)
	slices.SortFunc(sorted, func(a, b *model.Unit) int { return model.CompareKeys(a.Key, b.Key) })
	return sorted
}
