package argocd

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
)

// An app of apps names its child Applications (and only those) from
// status.resources; a generated Application names its ApplicationSet; the
// slim decoder keeps exactly that while no sync runs.
func TestParentsAndChildrenThroughTheSlimDecoder(t *testing.T) {
	whole := loadApp(t, "app-running.json")
	set(whole, "Succeeded", "status", "operationState", "phase")
	set(whole, []any{
		map[string]any{"group": "apps", "kind": "Deployment", "namespace": "web", "name": "web", "status": "Synced"},
		map[string]any{"group": "argoproj.io", "kind": "Application", "namespace": "argocd", "name": "child-a", "status": "Synced"},
		map[string]any{"group": "argoproj.io", "kind": "AppProject", "namespace": "argocd", "name": "not-a-child"},
	}, "status", "resources")
	set(whole, []any{map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet", "name": "shop", "uid": "u1", "controller": true}},
		"metadata", "ownerReferences")
	checkSlim(t, whole)
	data, _ := json.Marshal(whole)
	slim, err := DecodeSlim(data)
	if err != nil {
		t.Fatal(err)
	}
	u := Convert("c", slim)
	ns := u.Key.Namespace
	if want := []model.Key{{Context: "c", Engine: model.EngineArgoCD, Namespace: "argocd", Name: "child-a"}}; !slices.Equal(u.Children, want) {
		t.Fatalf("children %v, want %v", u.Children, want)
	}
	if want := []model.Key{{Context: "c", Engine: model.EngineApplicationSet, Namespace: ns, Name: "shop"}}; !slices.Equal(u.Parents, want) {
		t.Fatalf("parents %v, want %v", u.Parents, want)
	}
	res := slim["status"].(map[string]any)["resources"].([]any)
	if _, kept := res[0].(map[string]any)["name"]; kept {
		t.Fatal("the slim decoder kept the name of a resource that is not an Application")
	}
}

func TestApplicationSetConvertsToAParentRow(t *testing.T) {
	data := []byte(`{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationSet",
	 "metadata":{"name":"shop","namespace":"argocd","resourceVersion":"7","managedFields":[{"manager":"x"}]},
	 "spec":{"generators":[{"list":{"elements":[{"a":1}]}},{"git":{}}],"template":{"metadata":{"name":"{{a}}"},"spec":{}},
	         "syncPolicy":{"applicationsSync":"create-only","preserveResourcesOnDeletion":true}},
	 "status":{"conditions":[{"type":"ErrorOccurred","status":"True","reason":"ApplicationGenerationFromParamsError","message":"bad template\nmore"},
	                         {"type":"ResourcesUpToDate","status":"False"}]}}`)
	obj, err := DecodeAppSet(data)
	if err != nil {
		t.Fatal(err)
	}
	u := ConvertAppSet("c", obj)
	if u.Key != (model.Key{Context: "c", Engine: model.EngineApplicationSet, Namespace: "argocd", Name: "shop"}) || u.ResourceVersion != "7" {
		t.Fatalf("key %v rv %q", u.Key, u.ResourceVersion)
	}
	f := u.AppSet
	if f.Generators != 2 || f.ApplicationsSync != "create-only" || !f.PreserveOnDeletion || u.AutomationNative != "applicationsSync create-only" {
		t.Fatalf("facts %+v %q", f, u.AutomationNative)
	}
	if u.Run != model.Failed || u.Health != model.Degraded || u.Reason() != "ErrorOccurred: bad template" || len(u.ReadErrors) != 0 {
		t.Fatalf("state %v %v %q %v", u.Run, u.Health, u.Reason(), u.ReadErrors)
	}
	if _, ok := obj["metadata"].(map[string]any)["managedFields"]; ok {
		t.Fatal("managed fields kept")
	}
}
