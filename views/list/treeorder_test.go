package list

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetunits"
	"github.com/driftdeck/driftdeck/themes"
)

// A batch in the tree moves the changed unit to its new place among its
// siblings, and its parent, whose summary changed with it, among the roots.
func TestTreeBatchMovesAChangedUnitAndItsParent(t *testing.T) {
	m := treeList(t)
	m.ToggleFoldAll()
	if got := names(m.Shown()); got != "shop,cart,search,web,root,dns,network" {
		t.Fatalf("open tree %s", got)
	}
	us := treeFixture()
	change := func(name string, run model.RunState) {
		for i, x := range us {
			if x.Key.Name == name {
				y := *x
				y.Run, y.RunReason = run, ""
				us[i] = &y
			}
		}
	}
	// cart recovers and web starts a sync: web rises above its siblings;
	// the network Stack fails and rises above every root, shop stays above
	// root for its running child.
	change("cart", model.Idle)
	change("web", model.Running)
	change("network", model.Failed)
	m.SetUnits(slices.Clone(us), nil, now)
	if got := names(m.Shown()); got != "network,shop,web,cart,search,root,dns" {
		t.Fatalf("after the batch %s", got)
	}
	if screen := ansi.Strip(m.View(now)); !strings.Contains(screen, "3 below: 1 running, 2 ok") {
		t.Fatalf("the parent's summary did not follow the batch:\n%s", screen)
	}
	// web recovers: shop has nothing wrong below it any more and falls
	// back to key order among the healthy roots.
	change("web", model.Idle)
	m.SetUnits(slices.Clone(us), nil, now)
	if got := names(m.Shown()); got != "network,shop,cart,search,web,root,dns" {
		t.Fatalf("after web recovered %s", got)
	}
	if screen := ansi.Strip(m.View(now)); !strings.Contains(screen, "3 below: 3 ok") {
		t.Fatalf("the parent's summary did not follow the batch:\n%s", screen)
	}
}

// A tree kept up to date by batch after batch, in every order, with a
// filter typed and taken back, shows exactly the rows, the nesting and the
// parents' summaries a tree given the final units at once shows: the
// orders kept between batches never go stale.
func TestTreeKeptUpToDateByBatchesShowsWhatAFreshTreeShows(t *testing.T) {
	start, err := fleetunits.MixSnapshot(fleetunits.Mix{Apps: 300, Stacks: 100, Kustomizations: 30, HelmReleases: 20, Terraforms: 10}, now)
	if err != nil {
		t.Fatal(err)
	}
	openTree := func(units []*model.Unit, mode SortMode) *Model {
		m := New(themes.Dark())
		m.SetSize(120, 30)
		m.SetUnits(slices.Clone(units), nil, now)
		m.SetTree(true)
		m.ToggleFoldAll()
		m.SetSort(mode)
		return m
	}
	typing := []string{"", "p", "pr", "prod", "pr", "", "stuck|fail", "", "fleet-0", ""}
	for _, mode := range []SortMode{ByState, ByAge, ByName} {
		t.Run(mode.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(2, uint64(mode)))
			units := slices.Clone(start)
			m := openTree(units, mode)
			for step, text := range typing {
				m.SetFilter(text)
				for batch := range 3 {
					changed := restate(r, units, 1+r.IntN(12))
					if batch == 2 {
						// A unit goes away: the forest is built anew.
						gone := r.IntN(len(units))
						units = slices.Delete(units, gone, gone+1)
					}
					m.SetUnits(slices.Clone(units), changed, now)
					fresh := openTree(units, mode)
					fresh.SetFilter(text)
					if got, want := treeLines(m), treeLines(fresh); !slices.Equal(got, want) {
						i := firstDifference(got, want)
						t.Fatalf("after typing %q (step %d) and a batch: %d rows, a fresh tree shows %d; first difference at %d: %q, want %q",
							text, step, len(got), len(want), i, at(got, i), at(want, i))
					}
				}
			}
			// The flat list one key away is in the order sorted in the tree.
			m.SetTree(false)
			fresh := New(themes.Dark())
			fresh.SetSize(120, 30)
			fresh.SetUnits(slices.Clone(units), nil, now)
			fresh.SetSort(mode)
			if got, want := shownKeys(m), shownKeys(fresh); !slices.Equal(got, want) {
				t.Fatalf("the flat list after the tree: first difference at %d of %d rows", firstDifference(got, want), len(want))
			}
		})
	}
}

// treeLines are the shown rows as the tree draws their names: the unit,
// its depth and fold glyph, and a parent's summary.
func treeLines(m *Model) []string {
	out := make([]string, len(m.Shown()))
	for i, u := range m.Shown() {
		prefix, summary := m.treePrefix(u)
		out[i] = prefix + u.Key.String() + " " + summary
	}
	return out
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}
