package list

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
)

// treeFixture: an ApplicationSet over three Applications (one failed), an
// app of apps over one, and a Stack alone.
func treeFixture() []*model.Unit {
	set := u(model.EngineApplicationSet, "argocd", "shop", model.Idle, func(x *model.Unit) { x.Health = model.Healthy })
	owned := func(x *model.Unit) { x.Parents = []model.Key{set.Key}; x.Health = model.Healthy }
	us := []*model.Unit{
		set,
		u(model.EngineArgoCD, "argocd", "cart", model.Failed, owned, func(x *model.Unit) { x.RunReason = "last sync failed" }),
		u(model.EngineArgoCD, "argocd", "dns", model.Idle, func(x *model.Unit) { x.Health = model.Healthy }),
		u(model.EngineArgoCD, "argocd", "root", model.Idle, func(x *model.Unit) {
			x.Health = model.Healthy
			x.Children = []model.Key{{Engine: model.EngineArgoCD, Namespace: "argocd", Name: "dns"}}
		}),
		u(model.EngineArgoCD, "argocd", "search", model.Idle, owned),
		u(model.EngineArgoCD, "argocd", "web", model.Idle, owned),
		u(model.EnginePulumi, "infra", "network", model.Idle, func(x *model.Unit) { x.Health = model.Healthy }),
	}
	slices.SortFunc(us, func(a, b *model.Unit) int { return model.CompareKeys(a.Key, b.Key) })
	return us
}

func treeList(t *testing.T) *Model {
	t.Helper()
	m := New(themes.NoColor())
	m.SetSize(160, 30)
	m.SetUnits(treeFixture(), nil, now)
	selectName(t, m, "network") // a root: switching opens the cursor's parents
	m.SetTree(true)
	return m
}

func selectName(t *testing.T, m *Model, name string) {
	t.Helper()
	for i, x := range m.Shown() {
		if x.Key.Name == name {
			m.MoveTo(i)
			return
		}
	}
	t.Fatalf("%s is not shown: %s", name, names(m.Shown()))
}

func TestTreeFoldsAndOpensRowsAndAll(t *testing.T) {
	m := treeList(t)
	// Folded at first, the parent with a failed child first (by state).
	if got := names(m.Shown()); got != "shop,root,network" {
		t.Fatalf("folded tree %s", got)
	}
	screen := ansi.Strip(m.View(now))
	if !strings.Contains(screen, "▸ argocd/shop") || !strings.Contains(screen, "3 below: 1 failed, 2 ok") {
		t.Fatalf("the parent row does not fold or summarise:\n%s", screen)
	}
	selectName(t, m, "shop")
	m.ToggleFold()
	if got := names(m.Shown()); got != "shop,cart,search,web,root,network" {
		t.Fatalf("opened %s", got)
	}
	screen = ansi.Strip(m.View(now))
	if !strings.Contains(screen, "▾ argocd/shop") || !strings.Contains(screen, "    argocd/cart") {
		t.Fatalf("children not indented under the open parent:\n%s", screen)
	}
	// The cursor row's status names the parent, in the flat list too.
	selectName(t, m, "cart")
	if screen := ansi.Strip(m.View(now)); !strings.Contains(screen, "under  applicationset/argocd/shop") {
		t.Fatalf("the status does not name the parent:\n%s", screen)
	}
	// z on a child folds its parent and puts the cursor there.
	selectName(t, m, "search")
	m.ToggleFold()
	if got := names(m.Shown()); got != "shop,root,network" || m.Selected().Key.Name != "shop" {
		t.Fatalf("fold from a child: %s, cursor on %s", got, m.Selected().Key.Name)
	}
	m.ToggleFoldAll()
	if got := names(m.Shown()); got != "shop,cart,search,web,root,dns,network" {
		t.Fatalf("all open %s", got)
	}
	m.ToggleFoldAll()
	if got := names(m.Shown()); got != "shop,root,network" {
		t.Fatalf("all folded %s", got)
	}
	m.SetTree(false)
	if len(m.Shown()) != 7 {
		t.Fatalf("flat list %s", names(m.Shown()))
	}
}

func TestTreeFilterAndScopeKeepThePathToAMatch(t *testing.T) {
	m := treeList(t)
	m.SetFilter("search")
	if got := names(m.Shown()); got != "shop,search" {
		t.Fatalf("filtered tree %s", got)
	}
	if screen := ansi.Strip(m.View(now)); !strings.Contains(screen, "▾ argocd/shop") {
		t.Fatalf("the path is not shown open:\n%s", screen)
	}
	// Clearing the filter keeps the cursor on the match, its parent open.
	selectName(t, m, "search")
	m.SetFilter("")
	if m.Selected().Key.Name != "search" || !strings.Contains(names(m.Shown()), "shop,cart,search,web") {
		t.Fatalf("after the filter: cursor %s rows %s", m.Selected().Key.Name, names(m.Shown()))
	}
	m.SetScope(Scope{State: "failed"})
	if got := names(m.Shown()); got != "shop,cart" {
		t.Fatalf("scoped tree %s", got)
	}
	// The flat list one key away shows the match alone.
	m.SetTree(false)
	if got := names(m.Shown()); got != "cart" {
		t.Fatalf("flat scoped %s", got)
	}
	// Back in the tree the cursor stays on the unit, its parent opened.
	m.SetScope(Scope{})
	m.SetTree(true)
	if m.Selected().Key.Name != "cart" || !strings.Contains(names(m.Shown()), "shop,cart") {
		t.Fatalf("cursor %s rows %s", m.Selected().Key.Name, names(m.Shown()))
	}
}

// A filter typed in the tree puts the cursor on the first match, not on
// the parent shown as the path to it: clearing the filter then leaves the
// cursor on the match, its parent open.
func TestATreeFilterPutsTheCursorOnAMatch(t *testing.T) {
	m := treeList(t)
	selectName(t, m, "shop")
	m.SetFilter("search")
	if got := m.Selected().Key.Name; got != "search" {
		t.Fatalf("cursor on %s of %s, want the match", got, names(m.Shown()))
	}
	m.SetFilter("")
	if m.Selected().Key.Name != "search" || !strings.Contains(names(m.Shown()), "shop,cart,search,web") {
		t.Fatalf("after the filter: cursor %s rows %s", m.Selected().Key.Name, names(m.Shown()))
	}
}

func TestMarkOnAParentRowMarksItsChildren(t *testing.T) {
	m := treeList(t)
	selectName(t, m, "shop")
	parent, children, ok := m.Targets()
	if !ok || parent.Key.Name != "shop" || names(children) != "cart,search,web" {
		t.Fatalf("targets %v %s", ok, names(children))
	}
	m.ToggleMark()
	if got := names(m.Marked()); got != "cart,search,web" {
		t.Fatalf("marked %s", got)
	}
	selectName(t, m, "shop")
	m.ToggleMark()
	if len(m.Marked()) != 0 {
		t.Fatalf("a second mark does not clear: %s", names(m.Marked()))
	}
	selectName(t, m, "network")
	if _, _, ok := m.Targets(); ok {
		t.Fatal("a row without children has targets")
	}
}

func TestTreeFollowsABatch(t *testing.T) {
	m := treeList(t)
	us := treeFixture()
	for i, x := range us {
		if x.Key.Name == "cart" {
			fixed := *x
			fixed.Run, fixed.RunReason = model.Idle, ""
			us[i] = &fixed
		}
	}
	m.SetUnits(slices.Clone(us), map[model.Key]bool{{Engine: model.EngineArgoCD, Namespace: "argocd", Name: "cart"}: true}, now)
	if screen := ansi.Strip(m.View(now)); !strings.Contains(screen, "3 below: 3 ok") {
		t.Fatalf("the summary did not follow the change:\n%s", screen)
	}
}
