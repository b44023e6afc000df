package ui

import (
	"slices"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetunits"

	tea "charm.land/bubbletea/v2"
)

// fleetApp is the workbench at 120x40 holding the generated fleet of 5,000
// Applications and 1,000 Stacks.
func fleetApp(b *testing.B) (*App, []*model.Unit) {
	b.Helper()
	now := time.Now()
	units, err := fleetunits.Snapshot(5000, 1000, now)
	if err != nil {
		b.Fatal(err)
	}
	return benchApp(units, now), units
}

// benchApp is the workbench at 120x40 holding units, its clock stopped at now.
func benchApp(units []*model.Unit, now time.Time) *App {
	a := New(Options{Backend: &fakeBackend{}, Theme: "dark", Initial: store.Batch{Units: units}, Now: func() time.Time { return now }})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return a
}

// benchBatches measures one batch of 10 changed units handled and drawn
// per iteration, each batch a fresh snapshot as the store sends it.
func benchBatches(b *testing.B, a *App, units []*model.Unit) {
	next := append([]*model.Unit(nil), units...)
	var changes fleetunits.Changes
	b.ReportAllocs()
	for b.Loop() {
		changed := changes.Apply(next, 10)
		snapshot := append([]*model.Unit(nil), next...)
		a.Update(BatchMsg(store.Batch{Units: snapshot, Changed: changed}))
		_ = a.View()
	}
}

// benchCursorMoves measures one cursor move handled and drawn per
// iteration: 100 down, then 100 up, so the cursor stays near the top.
func benchCursorMoves(b *testing.B, a *App) {
	down, up := keyMsg("j"), keyMsg("k")
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		k := down
		if n++; n%200 >= 100 {
			k = up
		}
		a.Update(k)
		_ = a.View()
	}
}

// BenchmarkBatchUpdateView is one batch of 10 changed units handled and
// drawn: what the loop does about six times a second while 100 status
// changes a second stream in.
func BenchmarkBatchUpdateView(b *testing.B) {
	a, units := fleetApp(b)
	benchBatches(b, a, units)
}

// BenchmarkKeyUpdateView is one cursor move handled and drawn.
func BenchmarkKeyUpdateView(b *testing.B) {
	a, _ := fleetApp(b)
	benchCursorMoves(b, a)
}

// fleetTreeApp is the workbench at 120x40 in the tree view of the bench's
// one-cluster fleet (5,000 Applications in 50 ApplicationSets, 1,000
// Stacks, 1,000 Flux objects, 200 Terraforms: about 2,250 roots), every
// parent open.
func fleetTreeApp(b *testing.B) (*App, []*model.Unit) {
	b.Helper()
	now := time.Now()
	units, err := fleetunits.MixSnapshot(fleetunits.BenchMix, now)
	if err != nil {
		b.Fatal(err)
	}
	a := benchApp(units, now)
	a.Update(keyMsg("t"))
	a.Update(keyMsg("Z"))
	if !a.list().m.Tree() || len(a.list().m.Shown()) != len(units) {
		b.Fatalf("tree of %d rows, want all %d open", len(a.list().m.Shown()), len(units))
	}
	return a, units
}

// BenchmarkTreeKeyUpdateView is one cursor move in the open tree.
func BenchmarkTreeKeyUpdateView(b *testing.B) {
	a, _ := fleetTreeApp(b)
	benchCursorMoves(b, a)
}

// BenchmarkTreeFoldUpdateView is one parent row folded or opened (z) and
// drawn, on the first ApplicationSet of the open tree.
func BenchmarkTreeFoldUpdateView(b *testing.B) {
	a, _ := fleetTreeApp(b)
	a.Update(keyMsg("g"))
	fold := keyMsg("z")
	b.ReportAllocs()
	for b.Loop() {
		a.Update(fold)
		_ = a.View()
	}
}

// BenchmarkTreeBatchUpdateView is one batch of 10 changed Applications
// handled and drawn in the open tree: the forest is kept, only the
// changed units' parents are counted again.
func BenchmarkTreeBatchUpdateView(b *testing.B) {
	a, units := fleetTreeApp(b)
	benchBatches(b, a, units)
}

// largestApp is the workbench at 120x40 holding the largest one-
// cluster estate: 50,000 Applications in 500 ApplicationSets, 10,000
// Stacks, 8,000 Flux units and 2,000 Terraforms.
func largestApp(b *testing.B) (*App, []*model.Unit) {
	b.Helper()
	now := time.Now()
	units, err := fleetunits.MixSnapshot(fleetunits.Mix{Apps: 50000, Stacks: 10000, Kustomizations: 5000, HelmReleases: 3000, Terraforms: 2000}, now)
	if err != nil {
		b.Fatal(err)
	}
	return benchApp(units, now), units
}

// BenchmarkLargestBatchUpdateView is BenchmarkBatchUpdateView at 70,500
// units: what a keystroke waits behind while the estate changes.
func BenchmarkLargestBatchUpdateView(b *testing.B) {
	a, units := largestApp(b)
	benchBatches(b, a, units)
}

// BenchmarkLargestSortUpdateView cycles the flat list's sort (age, name,
// state) at 70,500 units.
func BenchmarkLargestSortUpdateView(b *testing.B) {
	a, _ := largestApp(b)
	benchKeys(b, a, []string{"o", "o", "o"})
}

// BenchmarkLargestSortBetweenBatchesUpdateView is a batch of 10 changed
// units, then a sort key, at 70,500 units: a sort key typed while the estate
// changes (BenchmarkLargestBatchUpdateView is the batch's share).
func BenchmarkLargestSortBetweenBatchesUpdateView(b *testing.B) {
	a, units := largestApp(b)
	next := append([]*model.Unit(nil), units...)
	var changes fleetunits.Changes
	sortKey := keyMsg("o")
	b.ReportAllocs()
	for b.Loop() {
		changed := changes.Apply(next, 10)
		a.Update(BatchMsg(store.Batch{Units: append([]*model.Unit(nil), next...), Changed: changed}))
		a.Update(sortKey)
		_ = a.View()
	}
}

// BenchmarkDialogKeyUpdateView is a letter typed into the pause dialog's
// reason and taken back, the plan shown above it, at 160x50: what each key
// of a reason costs.
func BenchmarkDialogKeyUpdateView(b *testing.B) {
	a, _ := newTestApp(b, 160, 50)
	selectUnit(b, a, "checkout")
	press(a, "p")
	typeText(a, "INC-5150: hotfix")
	if d, ok := a.top().(*dialog); !ok || d.plan == nil {
		b.Fatalf("no pause dialog with its plan:\n%s", plain(a))
	}
	benchKeys(b, a, []string{"x", "backspace"})
}

// BenchmarkIdleTickUpdateView is one clock tick handled and drawn while
// nothing changes: what the loop does every second while idle.
func BenchmarkIdleTickUpdateView(b *testing.B) {
	a, _ := fleetApp(b)
	_ = a.View()
	b.ReportAllocs()
	for b.Loop() {
		a.Update(tickMsg(a.now()))
		_ = a.View()
	}
}

// benchKeys measures each key of keys handled and drawn, the whole round
// once per iteration: ms/key is the mean over the keys, worst-ms/key the
// mean of the slowest one.
func benchKeys(b *testing.B, a *App, keys []string) {
	msgs := make([]tea.KeyPressMsg, len(keys))
	for i, k := range keys {
		msgs[i] = keyMsg(k)
	}
	took := make([]time.Duration, len(keys))
	b.ReportAllocs()
	for b.Loop() {
		for i, k := range msgs {
			start := time.Now()
			a.Update(k)
			_ = a.View()
			took[i] += time.Since(start)
		}
	}
	per := func(d time.Duration) float64 { return float64(d) / float64(b.N) / float64(time.Millisecond) }
	b.ReportMetric(per(sum(took))/float64(len(keys)), "ms/key")
	b.ReportMetric(per(slices.Max(took)), "worst-ms/key")
}

func sum(ds []time.Duration) (total time.Duration) {
	for _, d := range ds {
		total += d
	}
	return total
}

// treeFilterKeys are the bench's filter keys: open the filter, type a word,
// take half of it back, clear it.
var treeFilterKeys = []string{"/", "p", "a", "y", "m", "e", "n", "t", "s", "backspace", "backspace", "backspace", "backspace", "esc"}

// BenchmarkTreeFilterUpdateView types the filter keys in the open tree.
func BenchmarkTreeFilterUpdateView(b *testing.B) {
	a, _ := fleetTreeApp(b)
	benchKeys(b, a, treeFilterKeys)
}

// BenchmarkTreeSortUpdateView cycles the sort (state, age, name) in the
// open tree.
func BenchmarkTreeSortUpdateView(b *testing.B) {
	a, _ := fleetTreeApp(b)
	benchKeys(b, a, []string{"o", "o", "o"})
}

// BenchmarkTreeFilteredBatchUpdateView is BenchmarkTreeBatchUpdateView with
// a filter typed: a batch arriving while the user narrows the tree.
func BenchmarkTreeFilteredBatchUpdateView(b *testing.B) {
	a, units := fleetTreeApp(b)
	a.Update(keyMsg("/"))
	typeText(a, "pay")
	benchBatches(b, a, units)
}
