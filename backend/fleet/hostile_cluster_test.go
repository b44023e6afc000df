package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/livedescribe"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// hostileMessage is the largest condition message that fits, with the rest
// of each object, under what a real apiserver takes: it refuses a body over
// 3 MiB, etcd a request over 1.5 MiB (a 10 MB message is refused:
// the test shows it).
const hostileMessage = 800 << 10

// hostileOwners are cyclic-looking ownerReferences: the object owns itself,
// a pair own each other, and a chain of 500 owners ends in an ApplicationSet.
func hostileOwners(selfUID string) []any {
	refs := []any{
		map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "name": "self", "uid": selfUID},
		map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "name": "ping", "uid": "uid-pong"},
		map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "name": "pong", "uid": "uid-ping"},
	}
	for i := 0; i < 500; i++ {
		refs = append(refs, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": fmt.Sprintf("owner-%d", i), "uid": fmt.Sprintf("uid-owner-%d", i+1)})
	}
	return append(refs, map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet", "name": "team-a", "uid": "uid-owner-0"})
}

// hostileObjects are one object per engine with a message of msg bytes
// (Argo CD's operation message, the Stack's last update message; the
// conditions as long as their schema allows);
// the Application has 100,000 entries in status.resources (as small as the
// schema allows, so that they fit), the Kustomization 20,000 inventory entries.
func hostileObjects(ns string, msg int) map[schema.GroupVersionResource]map[string]any {
	text := strings.Repeat("m", msg)
	// Conditions of the metav1.Condition schema take at most 32 KiB.
	cond := []any{map[string]any{"type": "Ready", "status": "False", "reason": "Failed", "message": text[:min(msg, 32<<10)], "lastTransitionTime": ago(time.Minute)}}
	meta := func(name string) map[string]any { return map[string]any{"name": name, "namespace": ns} }
	resources := make([]any, 100_000)
	for i := range resources {
		resources[i] = map[string]any{}
		if i%10 == 0 {
			resources[i] = map[string]any{"status": "OutOfSync"}
		}
	}
	inventory := make([]any, 20_000)
	for i := range inventory {
		inventory[i] = map[string]any{"id": fmt.Sprintf("big_cm-%d__ConfigMap", i), "v": "v1"}
	}
	source := map[string]any{"kind": "GitRepository", "name": "r"}
	return map[schema.GroupVersionResource]map[string]any{
		argocd.Applications: {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": meta("big"),
			"spec": map[string]any{"project": "default", "source": map[string]any{"repoURL": "https://git.example.com/a.git"}, "destination": map[string]any{}},
			"status": map[string]any{"sync": map[string]any{"status": "OutOfSync"}, "resources": resources,
				"operationState": map[string]any{"phase": "Failed", "message": text, "startedAt": ago(time.Minute), "finishedAt": ago(time.Minute), "operation": map[string]any{"sync": map[string]any{}}}}},
		pulumiop.Stacks: {"apiVersion": "pulumi.com/v1", "kind": "Stack", "metadata": meta("big"), "spec": map[string]any{"stack": "o/p/s"},
			"status": map[string]any{"conditions": cond, "lastUpdate": map[string]any{"state": "failed", "message": text}}},
		flux.Kustomizations[0]: {"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization", "metadata": meta("big"),
			"spec":   map[string]any{"interval": "1m", "prune": true, "sourceRef": source},
			"status": map[string]any{"conditions": cond, "inventory": map[string]any{"entries": inventory}}},
		flux.HelmReleases[0]: {"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease", "metadata": meta("big"),
			"spec":   map[string]any{"interval": "1m", "chart": map[string]any{"spec": map[string]any{"chart": "c", "sourceRef": map[string]any{"kind": "HelmRepository", "name": "r"}}}},
			"status": map[string]any{"conditions": cond}},
		tofu.Terraforms[0]: {"apiVersion": "infra.contrib.fluxcd.io/v1alpha2", "kind": "Terraform", "metadata": meta("big"),
			"spec": map[string]any{"interval": "1m", "path": "./", "sourceRef": source}, "status": map[string]any{"conditions": cond}},
	}
}

// Objects as big as a real apiserver takes, with 100,000 resources and
// cyclic-looking owners, each become a unit that keeps a few kilobytes; the
// detail view still reads the whole message; nothing hangs.
func TestClusterHostileSizesKeepEachUnitSmall(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	ctx := context.Background()

	tooBig := hostileObjects(ns, 10<<20)[argocd.Applications]
	_, err := dyn.Resource(argocd.Applications).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: tooBig}, metav1.CreateOptions{})
	if err == nil {
		t.Fatal("the apiserver took a 10 MB message: make this test use it")
	}
	t.Logf("a 10 MB message: %v", err)

	f := startFleet(t, c, ns)

	total := 0
	for gvr, o := range hostileObjects(ns, hostileMessage) {
		u := &unstructured.Unstructured{Object: o}
		raw, _ := json.Marshal(o)
		total += len(raw)
		create(t, dyn, gvr, u, gvr != argocd.Applications)
	}
	app, err := dyn.Resource(argocd.Applications).Namespace(ns).Get(ctx, "big", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	app.SetOwnerReferences(nil)
	app.Object["metadata"].(map[string]any)["ownerReferences"] = hostileOwners(string(app.GetUID()))
	if _, err := dyn.Resource(argocd.Applications).Namespace(ns).Update(ctx, app, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	engines := []model.Engine{model.EngineArgoCD, model.EnginePulumi, model.EngineKustomization, model.EngineHelmRelease, model.EngineTerraform}
	units := map[model.Engine]*model.Unit{}
	deadline := time.Now().Add(60 * time.Second)
	for len(units) < len(engines) || units[model.EngineArgoCD].Owner == "" {
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s the model has %d of the %d units (or the Application's owner is not read)", len(units), len(engines))
		}
		time.Sleep(100 * time.Millisecond)
		f.Store.Tick()
		for _, u := range f.Store.Snapshot() {
			units[u.Key.Engine] = u
		}
	}
	t.Logf("%d objects, %.1f MB of JSON, in the model", len(engines), float64(total)/(1<<20))

	for _, e := range engines {
		u := units[e]
		kept := deepSize(reflect.ValueOf(u), map[uintptr]bool{})
		t.Logf("%s: the stored unit is %d bytes; reason %q…", e, kept, u.Reason()[:min(40, len(u.Reason()))])
		if kept > keptLimit {
			t.Errorf("%s: the stored unit is %d bytes, want at most %d", e, kept, keptLimit)
		}
		if e != model.EnginePulumi && !strings.HasSuffix(u.Reason(), " bytes more)") {
			t.Errorf("%s: the reason does not say it was cut: ...%q", e, u.Reason()[max(0, len(u.Reason())-60):])
		}
	}
	if a := units[model.EngineArgoCD]; a.Owner != "ApplicationSet/team-a" || a.Argo.Resources.OutOfSync != 10_000 {
		t.Errorf("the Application reads owner %q and %d resources out of sync, want ApplicationSet/team-a and 10000", a.Owner, a.Argo.Resources.OutOfSync)
	}

	d := &livedescribe.Describer{Cluster: f.Cluster}
	det, err := d.Describe(ctx, units[model.EngineArgoCD].Key)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(det.YAML, strings.Repeat("m", hostileMessage)) {
		t.Error("the detail view's YAML does not hold the whole message")
	}
}

// deepSize is the bytes a value holds (a piece of a longer string counts as
// its own length: TestHugeObjectsThroughEveryAdapter measures the heap the
// same units keep, pinned strings included): its own and what it points to,
// strings and slices by capacity, maps by entries.
func deepSize(v reflect.Value, seen map[uintptr]bool) int {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return 0
		}
		seen[v.Pointer()] = true
		return int(v.Type().Elem().Size()) + deepSize(v.Elem(), seen) - int(v.Elem().Type().Size())
	case reflect.String:
		return int(v.Type().Size()) + v.Len()
	case reflect.Slice:
		n := int(v.Type().Size()) + (v.Cap()-v.Len())*int(v.Type().Elem().Size())
		for i := 0; i < v.Len(); i++ {
			n += deepSize(v.Index(i), seen)
		}
		return n
	case reflect.Map:
		n := int(v.Type().Size())
		for it := v.MapRange(); it.Next(); {
			n += deepSize(it.Key(), seen) + deepSize(it.Value(), seen)
		}
		return n
	case reflect.Struct:
		n := int(v.Type().Size())
		for i := 0; i < v.NumField(); i++ {
			n += deepSize(v.Field(i), seen) - int(v.Field(i).Type().Size())
		}
		return n
	}
	return int(v.Type().Size())
}
