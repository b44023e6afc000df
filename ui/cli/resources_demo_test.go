package cli

import (
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/restree"
)

// resources names a core kind as kubectl does, ConfigMap/<ns>/<name>, not
// /ConfigMap/...; and sync's --resource takes the name it prints.
func TestResourcesNamesCoreKindsWithoutAGroup(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "resources", "argocd/team-payments/payments-api")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	core := 0
	for _, l := range strings.Split(out, "\n")[1:] {
		name, _, _ := strings.Cut(strings.TrimSpace(l), " ")
		if strings.HasPrefix(name, "/") {
			t.Errorf("a resource named with an empty group: %q", l)
		}
		if strings.HasPrefix(name, "Service/") || strings.HasPrefix(name, "ConfigMap/") || strings.HasPrefix(name, "Pod/") {
			core++
		}
	}
	if core == 0 {
		t.Errorf("no core kind in the tree:\n%s", out)
	}
	for _, r := range []restree.Ref{{Kind: "ConfigMap", Namespace: "web", Name: "settings"}, {Group: "apps", Kind: "Deployment", Namespace: "web", Name: "api"}, {Kind: "Namespace", Name: "web"}} {
		got, err := parseResource(r.String())
		if want := (actions.Resource{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}); err != nil || got != want {
			t.Errorf("--resource %s: %+v, %v; want %+v", r, got, err, want)
		}
	}
}
