package list

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetunits"
	"github.com/driftdeck/driftdeck/themes"
)

// restate replaces n random units with copies in another state, since
// another time and with another reason, as status changes do: their place
// in every order and their match with a filter change.
func restate(r *rand.Rand, units []*model.Unit, n int) map[model.Key]bool {
	runs := []model.RunState{model.Idle, model.Running, model.Stuck, model.Failed, model.AwaitingApproval}
	changed := map[model.Key]bool{}
	for range n {
		i := r.IntN(len(units))
		x := *units[i]
		x.Run = runs[r.IntN(len(runs))]
		x.Sync = []model.SyncState{model.InSync, model.Drifted}[r.IntN(2)]
		x.RunSince = now.Add(-time.Duration(r.IntN(3)) * time.Hour) // ties on purpose
		x.RunReason = []string{"", "waiting for prod approval", "hook failed"}[r.IntN(3)]
		x.ResourceVersion = fmt.Sprint(r.Int())
		units[i] = &x
		changed[x.Key] = true
	}
	return changed
}

func shownKeys(m *Model) []model.Key {
	var out []model.Key
	for _, x := range m.Shown() {
		out = append(out, x.Key)
	}
	return out
}

// A list that took batches of changes one after the other, while a filter
// was typed and taken back, shows exactly what a list given the final
// units at once shows, in every order, and so does it sorted again: the
// incremental steps, and the sort keys kept beside the units, never drift
// from filtering and sorting everything again.
func TestListKeptUpToDateByBatchesShowsWhatAFreshListShows(t *testing.T) {
	start, err := fleetunits.Snapshot(300, 100, now)
	if err != nil {
		t.Fatal(err)
	}
	typing := []string{"", "p", "pr", "pro", "prod", "pro", "pr", "stuck|fail", "!idle", "api", "ap", "a", ""}
	for _, mode := range []SortMode{ByState, ByAge, ByName} {
		t.Run(mode.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(mode)))
			units := slices.Clone(start)
			m := New(themes.Dark())
			m.SetSize(120, 30)
			m.SetUnits(slices.Clone(units), nil, now)
			m.SetSort(mode)
			for step, text := range typing {
				m.SetFilter(text)
				for range 3 {
					changed := restate(r, units, 1+r.IntN(8))
					m.SetUnits(slices.Clone(units), changed, now)

					if got, want := shownKeys(m), freshlyShown(units, mode, text); !slices.Equal(got, want) {
						t.Fatalf("after typing %q (step %d) and a batch: %d rows shown, a fresh list shows %d; first difference at %d",
							text, step, len(got), len(want), firstDifference(got, want))
					}
				}
				// Sorting again reads the sort keys the batches kept.
				m.SetSort(mode)
				if got, want := shownKeys(m), freshlyShown(units, mode, text); !slices.Equal(got, want) {
					t.Fatalf("after typing %q (step %d), batches and sorting again: first difference at %d", text, step, firstDifference(got, want))
				}
			}
		})
	}
}

// freshlyShown is what a list given units at once shows, sorted by mode
// and filtered by text.
func freshlyShown(units []*model.Unit, mode SortMode, text string) []model.Key {
	return freshlyShownIn(units, Scope{}, mode, text)
}

// freshlyShownIn is freshlyShown under a scope.
func freshlyShownIn(units []*model.Unit, scope Scope, mode SortMode, text string) []model.Key {
	fresh := New(themes.Dark())
	fresh.SetSize(120, 30)
	fresh.SetUnits(slices.Clone(units), nil, now)
	fresh.SetScope(scope)
	fresh.SetSort(mode)
	fresh.SetFilter(text)
	return shownKeys(fresh)
}

func firstDifference[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Taking a character back shows the rows the shorter text showed, without
// searching again, and typing it again finds the same rows.
func TestFilterBackspaceReturnsTheStepBefore(t *testing.T) {
	m := New(themes.Dark())
	m.SetUnits(fixture(), nil, now)
	m.SetFilter("b")
	wide := names(m.Shown())
	m.SetFilter("bi")
	if got := names(m.Shown()); got != "billing" {
		t.Fatalf(`"bi" shows %q, want billing`, got)
	}
	m.SetFilter("b")
	if got := names(m.Shown()); got != wide {
		t.Fatalf(`back to "b" shows %q, want %q as before`, got, wide)
	}
	if len(m.steps) != 2 {
		t.Errorf("%d steps kept after the backspace, want the base and \"b\"", len(m.steps))
	}
}
