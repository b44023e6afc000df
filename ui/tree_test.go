package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

// treeApp is the fixture with an ApplicationSet owning billing, checkout
// and search-indexer, in the tree view.
func treeApp(t *testing.T) (*App, *fakeBackend) {
	t.Helper()
	set := &model.Unit{Key: model.Key{Context: "prod-eu-1", Engine: model.EngineApplicationSet, Namespace: "argocd", Name: "storefront"},
		Kind: "ApplicationSet", Health: model.Healthy, Automation: model.Auto}
	units := []*model.Unit{set}
	for _, u := range fixtureUnits() {
		if slices.Contains([]string{"billing", "checkout", "search-indexer"}, u.Key.Name) {
			u.Parents = []model.Key{set.Key}
		}
		units = append(units, u)
	}
	slices.SortFunc(units, func(a, b *model.Unit) int { return model.CompareKeys(a.Key, b.Key) })
	be := &fakeBackend{}
	a := New(Options{Backend: be, Theme: "dark", Now: func() time.Time { return fixedNow }, Initial: store.Batch{Units: units}})
	a.Update(teaSize(140, 36))
	selectUnit(t, a, "edge-cdn")
	press(a, "t")
	return a, be
}

func TestTreeKeyShowsTheApplicationSetOverItsApplications(t *testing.T) {
	a, _ := treeApp(t)
	screen := plain(a)
	if !strings.Contains(screen, "▸ argocd/storefront") || !strings.Contains(screen, "3 below: 1 stuck, 1 blocked, 1 ok") {
		t.Fatalf("the tree does not show the folded parent with its summary:\n%s", screen)
	}
	if !strings.Contains(screen, "tree  sort state") {
		t.Fatalf("the header does not say the list is a tree:\n%s", screen)
	}
	if strings.Contains(screen, "argocd/checkout") {
		t.Fatalf("a folded parent shows its children:\n%s", screen)
	}
	selectUnit(t, a, "storefront")
	press(a, "z")
	if screen := plain(a); !strings.Contains(screen, "▾ argocd/storefront") || !strings.Contains(screen, "    argocd/checkout") {
		t.Fatalf("z does not open the parent:\n%s", screen)
	}
	press(a, "t")
	if screen := plain(a); strings.Contains(screen, "▾") || !strings.Contains(screen, "argocd/checkout") {
		t.Fatalf("t does not bring the flat list back:\n%s", screen)
	}
}

// A bulk key on a parent row acts on its children as one bulk action whose
// dialog names every target.
func TestBulkKeyOnAParentRowActsOnItsChildren(t *testing.T) {
	a, be := treeApp(t)
	selectUnit(t, a, "storefront")
	footer := strings.Split(plain(a), "\n")
	if f := footer[len(footer)-1]; !strings.Contains(f, "3 children of storefront:") {
		t.Fatalf("the footer does not say the keys act on the children: %q", f)
	}
	press(a, "r")
	d, ok := a.top().(*dialog)
	if !ok || d.kind != dlgBulk || len(d.units) != 3 {
		t.Fatalf("r on the parent row must confirm a bulk refresh of its 3 children:\n%s", plain(a))
	}
	text := flat(a)
	for _, want := range []string{"argocd/argocd/billing", "argocd/argocd/checkout", "argocd/argocd/search-indexer"} {
		if !strings.Contains(text, want) {
			t.Errorf("the bulk dialog does not list %s:\n%s", want, plain(a))
		}
	}
	if strings.Contains(text, "applicationset/argocd/storefront") {
		t.Errorf("the parent itself is a target:\n%s", plain(a))
	}
	typeText(a, "INC-7: compare the shop again")
	press(a, "enter", "y")
	if len(be.bulks) != 1 || be.bulks[0].Kind != actions.Refresh || len(be.bulks[0].Keys) != 3 {
		t.Fatalf("bulk requests: %+v", be.bulks)
	}
	// Freeze on the parent row freezes its children, not every shown row.
	press(a, "esc")
	selectUnit(t, a, "storefront")
	press(a, "F")
	if d, ok := a.top().(*dialog); !ok || d.kind != dlgBulk || len(d.units) != 3 {
		t.Fatalf("F on the parent row must confirm a freeze of its 3 children:\n%s", plain(a))
	}
}

func TestTreeAndAppSetCommands(t *testing.T) {
	a, _ := treeApp(t)
	press(a, ":")
	typeText(a, "flat")
	press(a, "enter")
	if a.list().m.Tree() {
		t.Fatal(":flat left the tree on")
	}
	press(a, ":")
	typeText(a, "appsets")
	press(a, "enter")
	if got := a.list().m.Shown(); len(got) != 1 || got[0].Key.Name != "storefront" || !strings.Contains(plain(a), "appset") {
		t.Fatalf(":appsets shows %d rows:\n%s", len(got), plain(a))
	}
	press(a, ":")
	typeText(a, "tree")
	press(a, "enter")
	if !a.list().m.Tree() {
		t.Fatal(":tree did not switch to the tree")
	}
}

// Freezing everything shown leaves out the ApplicationSet's row, which no
// action reaches.
func TestFreezeOfEveryShownUnitLeavesOutApplicationSets(t *testing.T) {
	a, _ := treeApp(t)
	press(a, "t") // the flat list: every row shown
	press(a, "F")
	d, ok := a.top().(*dialog)
	if !ok || d.kind != dlgBulk {
		t.Fatalf("F must confirm a freeze:\n%s", plain(a))
	}
	for _, u := range d.units {
		if u.Key.Engine == model.EngineApplicationSet {
			t.Fatalf("the freeze targets %s", u.Key.Ref())
		}
	}
	if len(d.units) != len(fixtureUnits()) {
		t.Fatalf("the freeze targets %d units, want the %d shown that can pause", len(d.units), len(fixtureUnits()))
	}
}

// An ApplicationSet has no action of driftdeck's: its detail says why, and
// a names the reason instead of opening an empty menu.
func TestApplicationSetSaysWhyItHasNoActions(t *testing.T) {
	a, _ := treeApp(t)
	selectUnit(t, a, "storefront")
	press(a, "a")
	if topIs[*dialog](a) {
		t.Fatalf("a opened an empty menu:\n%s", plain(a))
	}
	if got := flat(a); !strings.Contains(got, "applicationset/argocd/storefront: driftdeck has no actions for ApplicationSets; the Applications it generates have theirs (t in the list shows them under it)") {
		t.Errorf("a on an ApplicationSet must say why nothing can be done:\n%s", plain(a))
	}
	press(a, "enter")
	if got := flat(a); !strings.Contains(got, "Can do nothing: driftdeck has no actions for ApplicationSets; the Applications it generates have theirs") {
		t.Errorf("the ApplicationSet's detail must say why it can do nothing:\n%s", plain(a))
	}
}
