package restree

import (
	"fmt"
	"strings"
	"testing"

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
