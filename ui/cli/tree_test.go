package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/tree"
)

// Text from the cluster reaches the tree's table with its escape sequences
// made visible.
func TestTreeTableShowsClusterTextEscaped(t *testing.T) {
	set := &model.Unit{Key: model.Key{Engine: model.EngineApplicationSet, Namespace: "argocd", Name: "shop"},
		Run: model.Failed, RunReason: "ErrorOccurred: " + hostile}
	app := &model.Unit{Key: model.Key{Engine: model.EngineArgoCD, Namespace: "argocd", Name: "web"}, Parents: []model.Key{set.Key},
		Run: model.Failed, RunReason: "last sync failed: " + hostile}
	forest := tree.Build([]*model.Unit{set, app})
	top, _ := forest.Node(set.Key)
	var out strings.Builder
	if err := printSubtree(&globals{out: &out}, top, forest, time.Now()); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\x07") {
		t.Fatalf("the tree wrote ESC or BEL from the cluster:\n%q", out.String())
	}
	for _, unit := range []string{"applicationset/argocd/shop", "└─ argocd/argocd/web"} {
		if line := lineOf(out.String(), unit); !strings.Contains(line, `\x1b]0;owned\x07`) {
			t.Errorf("%s does not show the sequence escaped: %q", unit, line)
		}
	}
}
