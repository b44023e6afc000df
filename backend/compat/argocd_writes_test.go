package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// knowsAutomatedEnabled records, for the sets named here, whether their
// Application schema has spec.syncPolicy.automated.enabled (Argo CD 3.1+).
var knowsAutomatedEnabled = map[string]bool{
	"argocd-v2.14.21":   false,
	"argocd-v3.5.1":     true,
	testcluster.OwnName: true,
}

func newApp(name, ns string, spec, status map[string]any) *unstructured.Unstructured {
	if spec == nil {
		spec = map[string]any{}
	}
	spec["project"] = "default"
	spec["destination"] = map[string]any{"server": "https://kubernetes.default.svc", "namespace": "guestbook"}
	spec["source"] = map[string]any{"repoURL": "https://github.com/argoproj/argocd-example-apps", "path": "guestbook", "targetRevision": "HEAD"}
	obj := map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Application",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec":       spec,
	}
	if status != nil {
		obj["status"] = status
	}
	return &unstructured.Unstructured{Object: obj}
}

func apps(t *testing.T, c *testcluster.Cluster, warn *warnings, ns string) dynamic.ResourceInterface {
	return client(t, c, warn).Resource(gvr(&apiextensionsv1.CustomResourceDefinition{
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "argoproj.io", Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "applications"}},
	}, "v1alpha1")).Namespace(ns)
}

// checkAutomatedEnabled makes driftdeck's pause write, a merge patch of
// automated.enabled=false: kept where the schema knows the field; where it
// does not, the apiserver prunes it without an error, answers with an
// "unknown field" warning and leaves the object untouched (auto-sync stays on).
func checkAutomatedEnabled(t *testing.T, c *testcluster.Cluster, set testcluster.CRDSet, crd *apiextensionsv1.CustomResourceDefinition, ns string) {
	declared := declares(crd, "v1alpha1", "spec", "syncPolicy", "automated", "enabled")
	if want, known := knowsAutomatedEnabled[set.Name]; known && want != declared {
		t.Fatalf("the Application schema of %s declares automated.enabled: %v, want %v", set.Name, declared, want)
	}
	warn := &warnings{}
	res := apps(t, c, warn, ns)
	ctx := context.Background()
	app := newApp("pause-me", ns, map[string]any{
		"syncPolicy": map[string]any{"automated": map[string]any{"prune": true, "selfHeal": true}},
	}, nil)
	created, err := res.Create(ctx, app, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	patch := fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"syncPolicy":{"automated":{"enabled":false}}}}`, created.GetResourceVersion())
	patched, err := res.Patch(ctx, "pause-me", types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("the pause patch failed: %v", err)
	}
	got, err := res.Get(ctx, "pause-me", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	enabled, found, _ := unstructured.NestedBool(got.Object, "spec", "syncPolicy", "automated", "enabled")
	selfHeal, _, _ := unstructured.NestedBool(got.Object, "spec", "syncPolicy", "automated", "selfHeal")
	if declared {
		if !found || enabled {
			t.Errorf("automated.enabled after the patch: %v (present %v), want false", enabled, found)
		}
		if patched.GetResourceVersion() == created.GetResourceVersion() {
			t.Errorf("the patch did not change the object")
		}
		if w := warn.all(); len(w) > 0 {
			t.Errorf("warnings: %q", w)
		}
		return
	}
	if found {
		t.Errorf("automated.enabled survived on a schema without it: %v", enabled)
	}
	if !selfHeal {
		t.Errorf("selfHeal changed: auto-sync must stay as it was")
	}
	if patched.GetResourceVersion() != created.GetResourceVersion() {
		t.Errorf("the pruned patch still wrote the object (resourceVersion %s -> %s), want no change",
			created.GetResourceVersion(), patched.GetResourceVersion())
	}
	if w := strings.Join(warn.all(), "\n"); !strings.Contains(w, `unknown field "spec.syncPolicy.automated.enabled"`) {
		t.Errorf("warnings %q do not name the pruned field", w)
	}
}

// declares reports whether a CRD version's schema has the field at path.
func declares(crd *apiextensionsv1.CustomResourceDefinition, version string, path ...string) bool {
	for _, v := range crd.Spec.Versions {
		if v.Name != version || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		node := v.Schema.OpenAPIV3Schema
		for _, p := range path {
			next, ok := node.Properties[p]
			if !ok {
				return false
			}
			node = &next
		}
		return true
	}
	return false
}

// syncOperation is the operation driftdeck writes for a manual sync
// (DESIGN.md section 3), in full.
func syncOperation() map[string]any {
	return map[string]any{
		"initiatedBy": map[string]any{"username": "alice", "automated": false},
		"info":        []any{map[string]any{"name": "Reason", "value": "hotfix 42"}},
		"sync": map[string]any{
			"revision":     "",
			"prune":        true,
			"syncOptions":  []any{"CreateNamespace=true", "Prune=confirm"},
			"syncStrategy": map[string]any{"hook": map[string]any{}},
			"resources":    []any{map[string]any{"group": "apps", "kind": "Deployment", "name": "guestbook-ui"}},
		},
		"retry": map[string]any{"limit": int64(5), "backoff": map[string]any{"duration": "5s", "factor": int64(2), "maxDuration": "3m"}},
	}
}

func completedOperationState() map[string]any {
	return map[string]any{
		"operation":  map[string]any{"sync": map[string]any{"revision": "abc123"}, "initiatedBy": map[string]any{"automated": true}},
		"phase":      "Succeeded",
		"message":    "successfully synced (all tasks run)",
		"startedAt":  "2026-11-29T09:00:00Z",
		"finishedAt": "2026-11-29T09:00:10Z",
	}
}

// checkSyncOperation makes driftdeck's sync write: one merge patch that sets
// the operation and clears status.operationState, with a resourceVersion
// precondition. A stale precondition must be refused; the accepted write must
// be kept exactly, including the empty hook strategy.
func checkSyncOperation(t *testing.T, c *testcluster.Cluster, ns string) {
	warn := &warnings{}
	res := apps(t, c, warn, ns)
	ctx := context.Background()
	app := newApp("sync-me", ns, nil, map[string]any{
		"sync":           map[string]any{"status": "OutOfSync", "revision": "abc123"},
		"operationState": completedOperationState(),
	})
	created, err := res.Create(ctx, app, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The controller writes meanwhile: the first attempt's precondition is stale.
	_, err = res.Patch(ctx, "sync-me", types.MergePatchType, []byte(`{"status":{"reconciledAt":"2026-11-29T09:01:00Z"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	write := func(rv string) error {
		patch, err := json.Marshal(map[string]any{
			"metadata":  map[string]any{"resourceVersion": rv},
			"operation": syncOperation(),
			"status":    map[string]any{"operationState": nil},
		})
		if err != nil {
			t.Fatal(err)
		}
		_, err = res.Patch(ctx, "sync-me", types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}
	if err := write(created.GetResourceVersion()); !apierrors.IsConflict(err) {
		t.Fatalf("a sync written with a stale resourceVersion: got %v, want Conflict", err)
	}
	current, err := res.Get(ctx, "sync-me", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := write(current.GetResourceVersion()); err != nil {
		t.Fatalf("the sync write failed: %v", err)
	}
	got, err := res.Get(ctx, "sync-me", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := differences(normalize(map[string]any{"op": syncOperation()}), normalize(map[string]any{"op": got.Object["operation"]})); len(d) > 0 {
		t.Errorf("the operation was not kept as written:\n  %s", lines(d))
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(got.Object, "status", "operationState"); found {
		t.Errorf("status.operationState survived the sync write")
	}
	if s, _, _ := unstructured.NestedString(got.Object, "status", "sync", "status"); s != "OutOfSync" {
		t.Errorf("status.sync.status = %q: the write touched more of the status than operationState", s)
	}
	if w := warn.all(); len(w) > 0 {
		t.Errorf("warnings: %q", w)
	}
}

// checkTerminate makes driftdeck's terminate write: a JSON patch that tests
// that the phase is still Running and replaces it with Terminating. Written
// twice, the second must fail its test and change nothing.
func checkTerminate(t *testing.T, c *testcluster.Cluster, ns string) {
	res := apps(t, c, &warnings{}, ns)
	ctx := context.Background()
	app := newApp("terminate-me", ns, nil, map[string]any{
		"operationState": map[string]any{
			"operation": syncOperation(),
			"phase":     "Running",
			"message":   "waiting for completion of hook batch/Job/migrate",
			"startedAt": time.Now().UTC().Format(time.RFC3339),
		},
	})
	app.Object["operation"] = syncOperation()
	if _, err := res.Create(ctx, app, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	patch := []byte(`[{"op":"test","path":"/status/operationState/phase","value":"Running"},` +
		`{"op":"replace","path":"/status/operationState/phase","value":"Terminating"}]`)
	if _, err := res.Patch(ctx, "terminate-me", types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("terminate: %v", err)
	}
	got, err := res.Get(ctx, "terminate-me", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if phase, _, _ := unstructured.NestedString(got.Object, "status", "operationState", "phase"); phase != "Terminating" {
		t.Fatalf("phase after terminate = %q, want Terminating", phase)
	}
	if _, found, _ := unstructured.NestedMap(got.Object, "operation"); !found {
		t.Errorf("terminate removed the operation")
	}
	if _, err := res.Patch(ctx, "terminate-me", types.JSONPatchType, patch, metav1.PatchOptions{}); err == nil {
		t.Fatalf("a second terminate passed its test although the phase is Terminating")
	} else {
		t.Logf("second terminate refused: %v", err)
	}
	again, err := res.Get(ctx, "terminate-me", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.GetResourceVersion() != got.GetResourceVersion() {
		t.Errorf("the refused terminate still wrote the object")
	}
}
