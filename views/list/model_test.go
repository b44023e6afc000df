package list

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
)

var now = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func u(engine model.Engine, ns, name string, run model.RunState, mods ...func(*model.Unit)) *model.Unit {
	x := &model.Unit{Key: model.Key{Engine: engine, Namespace: ns, Name: name}, Run: run, Observed: run, RunSince: now.Add(-time.Minute)}
	for _, m := range mods {
		m(x)
	}
	return x
}

func fixture() []*model.Unit {
	return []*model.Unit{
		u(model.EngineArgoCD, "argocd", "api", model.Idle, func(x *model.Unit) { x.Sync = model.InSync }),
		u(model.EngineArgoCD, "argocd", "billing", model.Stuck, func(x *model.Unit) { x.RunReason = "sync running for 25m" }),
		u(model.EngineArgoCD, "team-b", "web", model.Failed, func(x *model.Unit) { x.Sync = model.Drifted }),
		u(model.EnginePulumi, "infra", "network", model.AwaitingApproval, func(x *model.Unit) { x.RunReason = "commit 2222 proposed" }),
	}
}

func names(us []*model.Unit) string {
	var s []string
	for _, x := range us {
		s = append(s, x.Key.Name)
	}
	return strings.Join(s, ",")
}

func TestFilterSubstringRegexAndInvert(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSort(ByName) // the order these rows are written in
	m.SetSize(120, 20)
	m.SetUnits(fixture(), nil, now)
	for _, c := range []struct{ filter, want string }{
		{"bill", "billing"},
		{"^pulumi/", "network"},
		{"stuck|failed", "billing,web"},
		{"!argocd", "network"},
		{"proposed", "network"},
		{"web(", ""}, // not a valid expression: matched literally, finds nothing
		{"", "api,billing,web,network"},
	} {
		m.SetFilter(c.filter)
		if got := names(m.Shown()); got != c.want {
			t.Errorf("filter %q: got %q, want %q", c.filter, got, c.want)
		}
	}
}

// A "$" or "^" anchors to the name a row shows (or another field), never to
// the end of text no row shows (the applied revision).
func TestFilterAnchorsToTheNameNotToHiddenText(t *testing.T) {
	units := fixture()
	for _, x := range units {
		x.Applied = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
	}
	m := New(themes.NoColor())
	m.SetSort(ByName)
	m.SetSize(120, 20)
	m.SetUnits(slices.Clone(units), nil, now)
	for _, c := range []struct{ filter, want string }{
		{"ing$", "billing"},
		{"^b", "billing"},
		{"^web$", "web"},
		{"team-b$", "web"}, // the namespace is a field too
		{"!ing$", "api,web,network"},
	} {
		m.SetFilter(c.filter)
		if got := names(m.Shown()); got != c.want {
			t.Errorf("filter %q: got %q, want %q", c.filter, got, c.want)
		}
	}
}

func TestScopeAndSort(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSort(ByName) // the order these rows are written in
	m.SetSize(120, 20)
	m.SetUnits(fixture(), nil, now)
	m.SetScope(Scope{Engine: model.EngineArgoCD})
	if got := names(m.Shown()); got != "api,billing,web" {
		t.Errorf(":apps gave %q", got)
	}
	m.SetScope(Scope{State: "drifted"})
	if got := names(m.Shown()); got != "web" {
		t.Errorf(":drifted gave %q", got)
	}
	m.SetScope(Scope{})
	m.SetSort(ByState)
	if got := names(m.Shown()); got != "billing,web,network,api" {
		t.Errorf("sort by state gave %q", got)
	}
}

func TestCursorStaysOnUnitAcrossUpdates(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSort(ByName) // the order these rows are written in
	m.SetSize(120, 20)
	m.SetUnits(fixture(), nil, now)
	m.MoveTo(2) // web
	fresh := append([]*model.Unit{u(model.EngineArgoCD, "argocd", "aaa", model.Idle)}, fixture()...)
	m.SetUnits(fresh, nil, now)
	if m.Selected().Key.Name != "web" {
		t.Fatalf("cursor moved to %s when a unit was added above", m.Selected().Key.Name)
	}
}

func TestChangedCellsAreHighlightedBriefly(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSize(120, 20)
	units := fixture()
	m.SetUnits(slices.Clone(units), nil, now)
	changed := *units[0]
	changed.Sync = model.Drifted
	units[0] = &changed
	m.SetUnits(slices.Clone(units), map[model.Key]bool{changed.Key: true}, now)
	rc := m.rows[changed.Key]
	if !rc.changed[colSync] || rc.changed[colName] {
		t.Fatalf("changed columns %v: want only SYNC", rc.changed)
	}
	lit := m.View(now.Add(time.Second))
	if !rc.highlight.After(now.Add(time.Second)) || rc.highlight.After(now.Add(3*time.Second)) {
		t.Fatal("highlight should last about two seconds")
	}
	if ends := m.NextChange(now.Add(time.Second)); m.View(ends.Add(-time.Millisecond)) != lit || m.View(ends) == lit {
		t.Fatalf("the list says it is drawn again at %v, when the highlight ends", ends)
	}
}

func TestViewFitsEveryWidth(t *testing.T) {
	m := New(themes.Dark())
	m.SetUnits(fixture(), nil, now)
	for _, w := range []int{40, 80, 100, 120, 200} {
		m.SetSize(w, 10)
		out := m.View(now)
		lines := strings.Split(out, "\n")
		if len(lines) != 10 {
			t.Fatalf("width %d: %d lines, want 10", w, len(lines))
		}
		for i, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: line %d is %d wide: %q", w, i, ansi.StringWidth(l), ansi.Strip(l))
			}
		}
	}
	m.SetSize(80, 10)
	head := ansi.Strip(strings.Split(m.View(now), "\n")[0])
	for _, col := range []string{"ENGINE", "NAMESPACE/NAME", "SYNC", "RUN"} {
		if !strings.Contains(head, col) {
			t.Errorf("80 columns lost %s: %q", col, head)
		}
	}
}

func TestMarksSurviveFilteringAndMarkShownToggles(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSort(ByName) // the order these rows are written in
	m.SetSize(120, 20)
	m.SetUnits(fixture(), nil, now)
	m.ToggleMark() // api
	m.SetFilter("web")
	m.MarkShown()
	if got := names(m.Marked()); got != "web,api" {
		t.Fatalf("marked %q", got)
	}
	m.MarkShown() // all shown are marked: clears
	if len(m.Marked()) != 0 {
		t.Fatal("ctrl+a on an all-marked list should clear the marks")
	}
}

func TestTypingNarrowsLikeAFreshFilter(t *testing.T) {
	typed := New(themes.NoColor())
	typed.SetSize(120, 20)
	typed.SetUnits(fixture(), nil, now)
	for _, text := range []string{"a", "ar", "arg", "argo", "argocd/", "argocd/w", "argocd/", "i", "in", "inf"} {
		typed.SetFilter(text)
		fresh := New(themes.NoColor())
		fresh.SetSize(120, 20)
		fresh.SetUnits(fixture(), nil, now)
		fresh.SetFilter(text)
		if names(typed.Shown()) != names(fresh.Shown()) {
			t.Fatalf("after typing %q: %q, a fresh filter shows %q", text, names(typed.Shown()), names(fresh.Shown()))
		}
	}
}
