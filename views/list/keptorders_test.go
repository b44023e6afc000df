package list

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetunits"
	"github.com/driftdeck/driftdeck/themes"
)

// Sort keys back and forth between batches of changes (now and then one
// that removes a unit, or one taken in the tree), under a scope and with a
// filter typed, show what a
// list given the final units at once shows in that order: an order taken
// back as it was kept, with the units changed since merged in, never
// drifts from sorting everything again.
func TestASortKeyBackToAKeptOrderShowsWhatAFreshListShows(t *testing.T) {
	start, err := fleetunits.Snapshot(300, 100, now)
	if err != nil {
		t.Fatal(err)
	}
	for _, scope := range []Scope{{}, {State: "failed"}, {Engine: model.EngineArgoCD}} {
		for _, text := range []string{"", "prod"} {
			r := rand.New(rand.NewPCG(7, uint64(len(text))))
			units := slices.Clone(start)
			m := New(themes.Dark())
			m.SetSize(120, 30)
			m.SetUnits(slices.Clone(units), nil, now)
			m.SetScope(scope)
			m.SetFilter(text)
			merged := 0
			for round := range 80 {
				switch r.IntN(8) {
				case 0:
					at := r.IntN(len(units))
					units = slices.Delete(units, at, at+1)
					m.SetUnits(slices.Clone(units), nil, now)
				case 1, 2, 3, 4:
					changed := restate(r, units, 1+r.IntN(12))
					m.SetUnits(slices.Clone(units), changed, now)
				case 5:
					// Changes while the tree is shown reach the kept orders too.
					m.SetTree(true)
					changed := restate(r, units, 1+r.IntN(12))
					m.SetUnits(slices.Clone(units), changed, now)
					m.SetTree(false)
				}
				mode := SortMode(r.IntN(3))
				if m.keptOrders[mode] != nil && len(m.keptOrders[mode].since) > 0 {
					merged++
				}
				m.SetSort(mode)
				if got, want := shownKeys(m), freshlyShownIn(units, scope, mode, text); !slices.Equal(got, want) {
					t.Fatalf("scope %+v, filter %q, round %d, by %s: %d rows shown, a fresh list shows %d; first difference at %d",
						scope, text, round, mode, len(got), len(want), firstDifference(got, want))
				}
			}
			if merged < 10 {
				t.Errorf("scope %+v, filter %q: %d of 80 sort keys went back to a kept order with changes to merge, want at least 10", scope, text, merged)
			}
		}
	}
}
