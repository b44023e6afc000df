package restree

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	tree "github.com/driftdeck/driftdeck/backend/restree"
	"github.com/driftdeck/driftdeck/themes"
)

// A tree taller than the screen scrolls with the cursor and never draws
// more lines than it has, hooks' heading included.
func TestLongTreeScrollsWithinItsHeight(t *testing.T) {
	var res []any
	for i := range 30 {
		res = append(res, map[string]any{"version": "v1", "kind": "Service", "namespace": "shop", "name": fmt.Sprintf("svc-%02d", i), "status": "Synced"})
	}
	app := map[string]any{"status": map[string]any{"resources": res, "operationState": map[string]any{"phase": "Running", "syncResult": map[string]any{
		"resources": []any{map[string]any{"group": "batch", "kind": "Job", "namespace": "shop", "name": "migrate", "hookType": "PreSync", "hookPhase": "Running"}}}}}}
	m := New(themes.NoColor(), "Resources of argocd/argocd/shop")
	m.SetSize(80, 12)
	m.SetTree(tree.Build(app, nil, nil), nil)
	for range 40 {
		m.Move(1)
		view := m.View()
		if n := len(strings.Split(view, "\n")); n > 12 {
			t.Fatalf("%d lines in a height of 12:\n%s", n, view)
		}
		if !strings.Contains(view, "> [ ] "+m.Selected().Kind+"/"+m.Selected().Name) {
			t.Fatalf("the cursor row %s is not on screen:\n%s", m.Selected().Name, view)
		}
	}
	if m.Selected().Name != "migrate" {
		t.Errorf("the last row is the hook, got %s", m.Selected().Name)
	}
}

// The columns after the names line up, whatever each name's length and
// depth: at 3 a.m. health is read down a column, not hunted along rows.
func TestTheColumnsAfterTheNamesLineUp(t *testing.T) {
	res := []any{
		map[string]any{"version": "v1", "kind": "ConfigMap", "namespace": "shop", "name": "a", "status": "OutOfSync"},
		map[string]any{"version": "v1", "kind": "ConfigMap", "namespace": "shop", "name": "a-much-longer-name", "status": "OutOfSync"},
		map[string]any{"version": "v1", "kind": "Service", "namespace": "shop", "name": "api", "status": "Synced", "health": map[string]any{"status": "Healthy"}},
	}
	m := New(themes.NoColor(), "Resources of argocd/argocd/shop")
	m.SetSize(120, 12)
	m.SetTree(tree.Build(map[string]any{"status": map[string]any{"resources": res}}, nil, nil), nil)
	view := m.View()
	var at []int
	for _, l := range strings.Split(ansi.Strip(view), "\n") {
		if strings.Contains(l, "[ ]") {
			at = append(at, strings.Index(l, "Unknown")+strings.Index(l, "Healthy")+1)
		}
	}
	if len(at) != 3 || at[0] != at[1] || at[1] != at[2] {
		t.Fatalf("the health column starts at %v, want one column:\n%s", at, view)
	}
}

// A reason cut at the screen's edge is marked, and the wrap key shows it
// whole, the cursor's row still on screen.
func TestReasonIsReadWholeWithTheWrapKey(t *testing.T) {
	reason := "CrashLoopBackOff: back-off 5m0s restarting failed container=api pod=payments-api-7d9f8b6c5-x2k4q_shop(0b7c1e2a-5f3d-4c1b-9a8e-1f2d3c4b5a6e)"
	res := []any{
		map[string]any{"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "shop", "name": "payments-api", "status": "Synced",
			"health": map[string]any{"status": "Degraded", "message": reason}},
		map[string]any{"version": "v1", "kind": "Service", "namespace": "shop", "name": "api", "status": "Synced", "health": map[string]any{"status": "Healthy"}},
	}
	m := New(themes.Dark(), "Resources of argocd/argocd/shop")
	m.SetSize(80, 12)
	m.SetTree(tree.Build(map[string]any{"status": map[string]any{"resources": res}}, nil, nil), nil)
	before := ansi.Strip(m.View())
	if !m.Cut() || !strings.Contains(before, "…") {
		t.Errorf("the cut reason is not marked cut:\n%s", before)
	}
	m.ToggleWrap()
	m.Move(1)
	after := m.View()
	if !strings.Contains(strings.Join(strings.Fields(ansi.Strip(after)), ""), strings.Join(strings.Fields(reason), "")) {
		t.Errorf("the reason is not whole after the wrap key:\n%s", ansi.Strip(after))
	}
	if !strings.Contains(ansi.Strip(after), "> [ ] Service/api") {
		t.Errorf("the cursor's row left the screen:\n%s", ansi.Strip(after))
	}
	for i, l := range strings.Split(after, "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("line %d is %d wide", i, ansi.StringWidth(l))
		}
	}
}
