package realcontrollers

import (
	"context"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/livetree"
	"github.com/driftdeck/driftdeck/backend/restree"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testflux"
)

const treeDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: example.invalid/web:1}]}
`

// treeChild is a Kustomization the parent applies, whose source is not
// there: the controller marks it not Ready.
const treeChild = `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: child}
spec: {interval: 1h, path: ./, prune: true, sourceRef: {kind: GitRepository, name: missing}}
`

const treeService = `apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80}]}
`

// A Kustomization's tree is what the real kustomize-controller recorded
// in its inventory, with the live objects they own and their health; an
// object pruned from the source leaves the tree with the next apply.
func TestClusterRealFluxKustomizationTreeIsItsInventory(t *testing.T) {
	e := realFluxEnv(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"web/deploy.yaml": treeDeployment, "web/svc.yaml": treeService,
		"web/child.yaml": treeChild, "web/cm.yaml": testargocd.ConfigMap("web-settings", "v1")})
	e.source("tree", repo)
	e.kustomization("tree", "tree", "./web")
	e.applied("tree", testflux.Revision("main", v1))
	e.waitFor("the child Kustomization failing on its missing source", func() (bool, string) {
		status, reason := ready(e.get(flux.Kustomizations[0], "child"))
		return status == "False", status + " " + reason
	})

	// envtest runs no Deployment controller: the ReplicaSet one would make.
	dep, err := e.kube.AppsV1().Deployments(e.ns).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-6d4f8", Namespace: e.ns,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(dep, appsv1.SchemeGroupVersion.WithKind("Deployment"))}},
		Spec: appsv1.ReplicaSetSpec{Selector: dep.Spec.Selector, Template: dep.Spec.Template}}
	if _, err := e.kube.AppsV1().ReplicaSets(e.ns).Create(context.Background(), rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	c := testcluster.Shared(t)
	kc, err := kube.NewCluster("test", c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	r := &livetree.Reader{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}
	read := func() *restree.Tree {
		t.Helper()
		tr, err := r.Read(context.Background(), e.key("tree"))
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	roots := func(tr *restree.Tree) []string {
		var out []string
		for _, n := range tr.Roots {
			out = append(out, n.Ref.String())
		}
		return out
	}
	inventory := func() []string {
		refs, _, bad := restree.InventoryRefs(e.get(flux.Kustomizations[0], "tree"))
		var out []string
		for _, r := range refs {
			out = append(out, r.String())
		}
		if len(bad) > 0 {
			t.Errorf("inventory entries not understood: %v", bad)
		}
		slices.Sort(out)
		return out
	}

	tr := read()
	want := []string{"ConfigMap/" + e.ns + "/web-settings", "Service/" + e.ns + "/web", "apps/Deployment/" + e.ns + "/web",
		"kustomize.toolkit.fluxcd.io/Kustomization/" + e.ns + "/child"}
	got := roots(tr)
	slices.Sort(got)
	if !slices.Equal(got, want) || !slices.Equal(got, inventory()) {
		t.Fatalf("the tree's resources are %v; the controller's inventory %v, want %v", got, inventory(), want)
	}
	if !tr.LiveRead || tr.PerResource || tr.Recorded != "status.inventory" || len(tr.Notes) > 0 {
		t.Errorf("tree read live %v, per resource %v, from %q, notes %v", tr.LiveRead, tr.PerResource, tr.Recorded, tr.Notes)
	}
	byKind := map[string]*restree.Node{}
	for _, n := range tr.Roots {
		byKind[n.Kind] = n
	}
	d := byKind["Deployment"]
	if d.Health != restree.Progressing || d.Reason == "" || !d.Live || len(d.Children) != 1 || d.Children[0].Name != "web-6d4f8" {
		t.Errorf("the Deployment no controller rolls out: %s %q live %v, children %v", d.Health, d.Reason, d.Live, d.Children)
	}
	if s := byKind["Service"]; s.Health != restree.Healthy {
		t.Errorf("the ClusterIP Service is %s %q", s.Health, s.Reason)
	}
	if k := byKind["Kustomization"]; k.Health != restree.Degraded || !strings.Contains(k.Reason, "missing") {
		t.Errorf("the child Kustomization is %s %q, want Degraded with its Ready condition's message", k.Health, k.Reason)
	}
	if cm := byKind["ConfigMap"]; cm.Health != "" {
		t.Errorf("a ConfigMap has no health, got %s", cm.Health)
	}

	v2 := repo.Remove("drop the settings", "web/cm.yaml")
	if err := e.do(actions.Request{Kind: actions.Refresh, Key: e.key("tree"), WithSource: true}); err != nil {
		t.Fatal(err)
	}
	e.applied("tree", testflux.Revision("main", v2))
	got = roots(read())
	slices.Sort(got)
	if want := want[1:]; !slices.Equal(got, want) {
		t.Errorf("after the prune the tree holds %v, want %v (inventory %v)", got, want, inventory())
	}
	if _, err := e.kube.CoreV1().ConfigMaps(e.ns).Get(context.Background(), "web-settings", metav1.GetOptions{}); err == nil {
		t.Error("the controller did not prune web-settings")
	}
}
