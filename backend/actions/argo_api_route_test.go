package actions

import (
	"encoding/json"
	"testing"
)

// A patch sent through argocd-server keeps its preconditions in a form the
// JSON patch library there applies: a member tested absent is a test of
// its parent as read, and an add under a parent the API dropped (an empty
// syncPolicy) brings the parent along.
func TestAPatchForArgoCDKeepsItsPreconditionsInAFormItsServerApplies(t *testing.T) {
	var app map[string]any
	if err := json.Unmarshal([]byte(`{"metadata":{"uid":"u1","annotations":{"a":"1"}},"spec":{"project":"default"}}`), &app); err != nil {
		t.Fatal(err)
	}
	ops := []Op{
		{"test", "/metadata/uid", "u1"},
		{"test", "/spec/syncPolicy/automated", nil},
		{"add", "/spec/syncPolicy/automated", map[string]any{"selfHeal": true}},
		{"add", "/metadata/annotations/driftdeck.io~1paused-by", "alice"},
		{"test", "/metadata/annotations/a", nil},
	}
	got, _ := json.Marshal(patchForArgo(ops, app))
	want := `[{"op":"test","path":"/metadata/uid","value":"u1"},` +
		`{"op":"test","path":"/spec","value":{"project":"default"}},` +
		`{"op":"add","path":"/spec/syncPolicy","value":{"automated":{"selfHeal":true}}},` +
		`{"op":"add","path":"/metadata/annotations/driftdeck.io~1paused-by","value":"alice"},` +
		`{"op":"test","path":"/metadata/annotations/a","value":null}]`
	if string(got) != want {
		t.Errorf("patch for argocd-server:\n%s\nwant:\n%s", got, want)
	}
}

// The sync sent through the API is the operation the plan shows: the
// reviewed revision, the options, the resources and the reason.
func TestTheSyncSentThroughArgoCDIsTheShownOperation(t *testing.T) {
	var op map[string]any
	if err := json.Unmarshal([]byte(`{"initiatedBy":{"username":"carol"},"info":[{"name":"Reason","value":"INC-2"}],"retry":{"limit":2},
		"sync":{"revision":"abc123","prune":true,"dryRun":true,"syncStrategy":{"hook":{"force":true}},"syncOptions":["CreateNamespace=true","ApplyOutOfSyncOnly=true"],
		"resources":[{"group":"","kind":"ConfigMap","namespace":"web","name":"cm"}]}}`), &op); err != nil {
		t.Fatal(err)
	}
	r, err := syncRequestOf([]Op{{"test", "/operation", nil}, {"add", "/operation", op}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(r)
	want := `{"name":"","revision":"abc123","dryRun":true,"prune":true,"strategy":{"hook":{"force":true}},` +
		`"resources":[{"group":"","kind":"ConfigMap","name":"cm","namespace":"web"}],"infos":[{"name":"Reason","value":"INC-2"}],` +
		`"retryStrategy":{"limit":2},"syncOptions":{"items":["CreateNamespace=true","ApplyOutOfSyncOnly=true"]}}`
	if string(got) != want {
		t.Errorf("sync request:\n%s\nwant:\n%s", got, want)
	}
}
