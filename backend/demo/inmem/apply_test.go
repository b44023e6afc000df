package inmem

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// A dry-run apply answers with the object the apply would leave: the
// applied fields over the stored ones, nothing stored; a missing object is
// created as the apply would create it.
func TestADryRunApplyMergesOverTheStoredObjectAndStoresNothing(t *testing.T) {
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	s := New(Resource{GVR: deployments, Kind: "Deployment", Namespaced: true, Status: true})
	live := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "team-web", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"replicas": int64(5), "paused": false},
	}}
	if err := s.Seed(deployments, live); err != nil {
		t.Fatal(err)
	}
	dyn := s.Dynamic()
	ri := dyn.Resource(deployments).Namespace("team-web")
	applied := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"team-web","labels":{"owner":"flux"}},"spec":{"replicas":2}}`)
	force := true
	opts := metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}, FieldManager: "kustomize-controller", Force: &force}
	got, err := ri.Patch(t.Context(), "web", types.ApplyPatchType, applied, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 2 {
		t.Errorf("the dry run's replicas are %d, want the applied 2", r)
	}
	if p, found, _ := unstructured.NestedBool(got.Object, "spec", "paused"); !found || p {
		t.Errorf("a stored field the apply does not set is gone from the answer: %v", got.Object["spec"])
	}
	if l := got.GetLabels(); l["app"] != "web" || l["owner"] != "flux" {
		t.Errorf("labels are %v, want the stored and the applied ones", l)
	}
	stored, err := ri.Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(stored.Object, "spec", "replicas"); r != 5 {
		t.Errorf("the dry run stored replicas %d", r)
	}

	created, err := ri.Patch(t.Context(), "api", types.ApplyPatchType, []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"team-web"},"spec":{"replicas":1}}`), opts)
	if err != nil || created.GetUID() == "" {
		t.Fatalf("a dry-run apply of a missing object: %v, %v", created, err)
	}
	if _, err := ri.Get(t.Context(), "api", metav1.GetOptions{}); err == nil {
		t.Error("the dry-run apply of a missing object stored it")
	}
	if _, err := ri.Patch(t.Context(), "web", types.ApplyPatchType, []byte("null"), opts); err == nil {
		t.Error("an empty apply was accepted")
	}
	if _, err := ri.Patch(t.Context(), "other", types.ApplyPatchType, []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","namespace":"team-web"}}`), opts); err == nil {
		t.Error("an apply whose object names another object than the request was accepted")
	}
}
