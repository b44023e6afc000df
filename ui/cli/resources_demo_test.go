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

// The demo's failed kube-prometheus-stack upgrade: its tree is its release's
// manifest, read from Helm's storage Secret, with the grafana pod that
// crash-loops; the values stored with the release are never printed.
func TestDemoHelmReleaseTreeIsItsReleasesManifest(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "resources", "helmrelease/monitoring/kube-prometheus-stack")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"apps/Deployment/monitoring/kube-prometheus-stack-grafana", "CrashLoopBackOff",
		"rbac.authorization.k8s.io/ClusterRole//kube-prometheus-stack-operator", "ServiceAccount/monitoring/kube-prometheus-stack-grafana"} {
		if !strings.Contains(out, want) {
			t.Errorf("the tree does not show %q:\n%s", want, out)
		}
	}
	if strings.Contains(out+stderr, "demo-grafana-admin") {
		t.Error("a value of the release is printed")
	}
}
