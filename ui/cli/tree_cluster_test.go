package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// On a real API server: an ApplicationSet owning two Applications (owner
// references as its controller sets them) and an app of apps listing one
// in status.resources. `tree` draws each parent over its children, escapes
// the cluster's text, and `status -o json` names every record's parents.
func TestClusterTreeCommandAndStatusParents(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	msg, _ := json.Marshal(hostile)
	createJSON(t, dyn, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationSet","metadata":{"name":"shop"},
		"spec":{"generators":[{"list":{"elements":[{"svc":"cart"},{"svc":"web"}]}}],"template":{"metadata":{"name":"shop-{{svc}}"},"spec":{"project":"default",
		"source":{"repoURL":"https://git.example.com/shop.git","path":"{{svc}}"},"destination":{"server":"https://kubernetes.default.svc","namespace":"shop"}}}},
		"status":{"conditions":[{"type":"ErrorOccurred","status":"True","reason":"ApplicationGenerationFromParamsError","message":`+string(msg)+`,"lastTransitionTime":"2026-11-29T10:00:00Z"}]}}`)
	set, err := dyn.Resource(argocd.ApplicationSets).Namespace(ns).Get(context.Background(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	app := func(name, extraMeta, status string) {
		createJSON(t, dyn, ns, fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":%q%s},
			"spec":{"project":"default","source":{"repoURL":"https://git.example.com/shop.git","path":"x"},"destination":{"server":"https://kubernetes.default.svc","namespace":"shop"}},
			"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}%s}}`, name, extraMeta, status))
	}
	owned := fmt.Sprintf(`,"ownerReferences":[{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationSet","name":"shop","uid":%q,"controller":true,"blockOwnerDeletion":true}]`, set.GetUID())
	app("shop-cart", owned, "")
	app("shop-web", owned, "")
	app("root", "", fmt.Sprintf(`,"resources":[{"group":"argoproj.io","version":"v1alpha1","kind":"Application","namespace":%q,"name":"dns","status":"Synced"},
		{"version":"v1","kind":"ConfigMap","namespace":%q,"name":"settings","status":"Synced"}]`, ns, ns))
	app("dns", "", "")
	kc := testcluster.Kubeconfig(t, c.Config(), "test")

	code, out, stderr := run(t, "tree", "applicationset/"+ns+"/shop", "-n", ns, "--kubeconfig", kc)
	if code != 0 {
		t.Fatalf("tree: exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("tree wrote ESC or BEL from the cluster:\n%q", out)
	}
	for _, want := range []string{"├─ argocd/" + ns + "/shop-cart", "└─ argocd/" + ns + "/shop-web", "2 below: 2 ok", `\x1b]0;owned\x07`} {
		if !strings.Contains(out, want) {
			t.Errorf("tree does not show %q:\n%s", want, out)
		}
	}
	if code, _, stderr := run(t, "tree", "applicationset/"+ns+"/gone", "-n", ns, "--kubeconfig", kc); code != exitNotFound {
		t.Errorf("a missing ApplicationSet: exit %d (%s), want %d", code, stderr, exitNotFound)
	}

	statusNamesParents(t, kc, ns, map[string][]string{
		"argocd/" + ns + "/shop-cart":    {"applicationset/" + ns + "/shop"},
		"argocd/" + ns + "/shop-web":     {"applicationset/" + ns + "/shop"},
		"argocd/" + ns + "/dns":          {"argocd/" + ns + "/root"},
		"argocd/" + ns + "/root":         {},
		"applicationset/" + ns + "/shop": {},
	})
}

// A user who may read everything driftdeck watches but ApplicationSets gets
// the same status as before they existed: the Applications as roots, no
// error, no warning.
func TestClusterStatusWithoutTheRightToReadApplicationSets(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	createJSON(t, dyn, ns, argoApp("web", ""))
	read := []string{"get", "list", "watch"}
	cfg := c.UserConfig(t, "no-appsets", []rbacv1.PolicyRule{
		{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications", "appprojects"}, Verbs: read},
		{APIGroups: []string{"pulumi.com"}, Resources: []string{"stacks"}, Verbs: read},
		{APIGroups: []string{"auto.pulumi.com"}, Resources: []string{"updates"}, Verbs: read},
		{APIGroups: []string{"kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "infra.contrib.fluxcd.io"}, Resources: []string{"*"}, Verbs: read},
	}, ns)
	code, out, stderr := run(t, "status", "-o", "json", "-n", ns, "--kubeconfig", testcluster.Kubeconfig(t, cfg, "no-appsets"))
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var recs []unitRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Unit != "argocd/"+ns+"/web" || len(recs[0].Parents) != 0 {
		t.Fatalf("records %+v", recs)
	}
}

// On a real API server serving the upstream Pulumi operator 2.9 and Flux
// CRDs: a Stack with two prerequisites (spec.prerequisites, as the operator
// reads them) sits under the first and names the second; a Kustomization
// sits under the one its spec.dependsOn names. `tree` draws them so, and
// `status -o json` names each record's parents.
func TestClusterTreeOfStackPrerequisitesAndKustomizationDependsOn(t *testing.T) {
	c := testcluster.SharedNewestUpstream(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	stack := func(name, prerequisites string) {
		createJSON(t, dyn, ns, fmt.Sprintf(`{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":%q},
			"spec":{"stack":"org/%s/prod","projectRepo":"https://git.example.com/infra.git","branch":"main"%s},"status":{}}`, name, name, prerequisites))
	}
	stack("network", "")
	stack("iam", "")
	stack("data-lake", `,"prerequisites":[{"name":"network","requirement":{"succeededWithinDuration":"1h"}},{"name":"iam"}]`)
	ks := `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":%q,"namespace":%q},
		"spec":{"interval":"10m","prune":true,"sourceRef":{"kind":"GitRepository","name":"fleet"}%s}}`
	fluxUnit(t, dyn, flux.Kustomizations[0], fmt.Sprintf(ks, "infra", ns, ""), "")
	fluxUnit(t, dyn, flux.Kustomizations[0], fmt.Sprintf(ks, "apps", ns, fmt.Sprintf(`,"dependsOn":[{"name":"infra","namespace":%q}]`, ns)), "")
	kc := testcluster.Kubeconfig(t, c.Config(), "test")

	code, out, stderr := run(t, "tree", "pulumi/"+ns+"/network", "-n", ns, "--kubeconfig", kc)
	if code != 0 || !strings.Contains(out, "└─ pulumi/"+ns+"/data-lake") || !strings.Contains(lineOf(out, "pulumi/"+ns+"/data-lake"), "also under pulumi/"+ns+"/iam") {
		t.Errorf("the Stack is not drawn under its first prerequisite: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, "tree", "pulumi/"+ns+"/iam", "-n", ns, "--kubeconfig", kc)
	if code != 0 || !strings.Contains(out, "also over (shown under their first parent): pulumi/"+ns+"/data-lake") {
		t.Errorf("the second prerequisite does not name the Stack waiting on it: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, "tree", "kustomization/"+ns+"/infra", "-n", ns, "--kubeconfig", kc)
	if code != 0 || !strings.Contains(out, "└─ kustomization/"+ns+"/apps") {
		t.Errorf("the Kustomization is not drawn under the one it depends on: exit %d\n%s%s", code, out, stderr)
	}

	statusNamesParents(t, kc, ns, map[string][]string{
		"pulumi/" + ns + "/network":      {},
		"pulumi/" + ns + "/iam":          {},
		"pulumi/" + ns + "/data-lake":    {"pulumi/" + ns + "/network", "pulumi/" + ns + "/iam"},
		"kustomization/" + ns + "/infra": {},
		"kustomization/" + ns + "/apps":  {"kustomization/" + ns + "/infra"},
	})
}

// statusNamesParents checks that status -o json lists exactly the units of
// want, each with the parents want gives it, in order.
func statusNamesParents(t *testing.T, kc, ns string, want map[string][]string) {
	t.Helper()
	code, out, stderr := run(t, "status", "-o", "json", "-n", ns, "--kubeconfig", kc)
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, stderr)
	}
	var recs []unitRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(want) {
		t.Errorf("%d records, want %d: %s", len(recs), len(want), out)
	}
	for _, r := range recs {
		if w, ok := want[r.Unit]; !ok || !slices.Equal(r.Parents, w) {
			t.Errorf("%s: parents %v, want %v", r.Unit, r.Parents, w)
		}
	}
}
