package tree

import (
	"slices"
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
)

func key(e model.Engine, name string) model.Key {
	return model.Key{Context: "c", Engine: e, Namespace: "ns", Name: name}
}

func app(name string, run model.RunState, parents ...model.Key) *model.Unit {
	return &model.Unit{Key: key(model.EngineArgoCD, name), Run: run, Health: model.Healthy, Parents: parents}
}

// sorted returns units in key order, as the store hands them over.
func sorted(us ...*model.Unit) []*model.Unit {
	slices.SortFunc(us, func(a, b *model.Unit) int { return model.CompareKeys(a.Key, b.Key) })
	return us
}

func names(ns []*Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Unit.Key.Name)
	}
	return out
}

func TestApplicationSetAndAppOfAppsAreParents(t *testing.T) {
	set := &model.Unit{Key: key(model.EngineApplicationSet, "shop"), Health: model.Healthy}
	root := app("root", model.Idle)
	root.Children = []model.Key{key(model.EngineArgoCD, "dns"), key(model.EngineArgoCD, "gone")}
	f := Build(sorted(set, root,
		app("cart", model.Failed, set.Key), app("web", model.Idle, set.Key), app("api", model.Stuck, set.Key),
		app("dns", model.Idle)))
	if got := names(f.Roots); !slices.Equal(got, []string{"shop", "root"}) {
		t.Fatalf("roots %v", got)
	}
	shop, _ := f.Node(set.Key)
	if got := names(shop.Children); !slices.Equal(got, []string{"api", "cart", "web"}) {
		t.Fatalf("children of the ApplicationSet %v", got)
	}
	if s := shop.Summary; s.Worst() != Stuck || s.String() != "3 below: 1 stuck, 1 failed, 1 ok" {
		t.Fatalf("summary %q worst %v", s.String(), s.Worst())
	}
	dns, _ := f.Node(key(model.EngineArgoCD, "dns"))
	if dns.Parent == nil || dns.Parent.Unit != root || dns.Depth != 1 {
		t.Fatalf("the app of apps' child is not under it: %+v", dns)
	}
	if got := f.ParentsOf(dns.Unit.Key); !slices.Equal(got, []model.Key{root.Key}) {
		t.Fatalf("parents %v", got)
	}
}

func TestMissingParentMakesARoot(t *testing.T) {
	f := Build(sorted(app("orphan", model.Idle, key(model.EngineApplicationSet, "deleted"))))
	if len(f.Roots) != 1 || f.Roots[0].Unit.Key.Name != "orphan" || len(f.ParentsOf(f.Roots[0].Unit.Key)) != 0 {
		t.Fatalf("roots %v", names(f.Roots))
	}
}

func TestCycleIsCutAtTheFirstKey(t *testing.T) {
	stack := func(name string, prereq ...string) *model.Unit {
		u := &model.Unit{Key: key(model.EnginePulumi, name)}
		for _, p := range prereq {
			u.Parents = append(u.Parents, key(model.EnginePulumi, p))
		}
		return u
	}
	f := Build(sorted(stack("a", "c"), stack("b", "a"), stack("c", "b"), stack("d", "d")))
	if got := names(f.Roots); !slices.Equal(got, []string{"a", "d"}) {
		t.Fatalf("roots %v", got)
	}
	count := 0
	for _, r := range f.Roots {
		r.Walk(func(*Node) { count++ })
	}
	if count != 4 {
		t.Fatalf("walked %d nodes, want each of the 4 once", count)
	}
	a, _ := f.Node(key(model.EnginePulumi, "a"))
	if got := f.ParentsOf(a.Unit.Key); !slices.Equal(got, []model.Key{key(model.EnginePulumi, "c")}) {
		t.Fatalf("the cut parent is still named: %v", got)
	}
}

func TestSeveralParentsShowUnderTheFirst(t *testing.T) {
	net, db := &model.Unit{Key: key(model.EnginePulumi, "net")}, &model.Unit{Key: key(model.EnginePulumi, "db")}
	svc := &model.Unit{Key: key(model.EnginePulumi, "svc"), Parents: []model.Key{net.Key, db.Key}}
	f := Build(sorted(net, db, svc))
	n, _ := f.Node(svc.Key)
	if n.Parent.Unit != net || !slices.Equal(n.Also, []model.Key{db.Key}) {
		t.Fatalf("parent %v also %v", n.Parent.Unit.Key, n.Also)
	}
	d, _ := f.Node(db.Key)
	if len(d.Children) != 0 {
		t.Fatal("shown twice")
	}
	if got := f.AlsoBelow(db.Key); !slices.Equal(got, []model.Key{svc.Key}) {
		t.Fatalf("the second parent does not know the unit it is also over: %v", got)
	}
}

func TestUpdateKeepsTheStructureOnAStatusChange(t *testing.T) {
	set := &model.Unit{Key: key(model.EngineApplicationSet, "shop")}
	web := app("web", model.Idle, set.Key)
	f := Build(sorted(set, web))
	failing := *web
	failing.Run = model.Failed
	g, touched := f.Update(sorted(set, &failing))
	if g != f {
		t.Fatal("a status change rebuilt the forest")
	}
	n, _ := g.Node(set.Key)
	if n.Summary.Worst() != Failed || n.Children[0].Unit != &failing {
		t.Fatalf("summary not recounted: %q", n.Summary.String())
	}
	// The changed unit and its parent, whose summary changed: what an
	// order kept over the nodes must move.
	if got := names(touched); !slices.Equal(got, []string{"web", "shop"}) {
		t.Fatalf("touched %v", got)
	}
	if _, touched := g.Update(sorted(set, &failing)); len(touched) != 0 {
		t.Fatalf("the same snapshot touched %v", names(touched))
	}
	moved := failing
	moved.Parents = nil
	h, touched := g.Update(sorted(set, &moved))
	if h == g || len(h.Roots) != 2 || touched != nil {
		t.Fatalf("a changed parent must rebuild: roots %v, touched %v", names(h.Roots), names(touched))
	}
}

func TestUpdateTouchesEachAncestorOnce(t *testing.T) {
	top := &model.Unit{Key: key(model.EnginePulumi, "top")}
	mid := &model.Unit{Key: key(model.EnginePulumi, "mid"), Parents: []model.Key{top.Key}}
	a := &model.Unit{Key: key(model.EnginePulumi, "a"), Parents: []model.Key{mid.Key}}
	b := &model.Unit{Key: key(model.EnginePulumi, "b"), Parents: []model.Key{mid.Key}}
	f := Build(sorted(top, mid, a, b))
	a2, mid2 := *a, *mid
	a2.Run, mid2.Run = model.Stuck, model.Failed
	b2 := *b
	_, touched := f.Update(sorted(top, &mid2, &a2, &b2))
	got := names(touched)
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "b", "mid", "top"}) {
		t.Fatalf("touched %v, want each changed unit and ancestor once", got)
	}
	topNode, _ := f.Node(top.Key)
	if topNode.Summary.String() != "3 below: 1 stuck, 1 failed, 1 unknown" {
		t.Fatalf("top's summary %q", topNode.Summary.String())
	}
}
