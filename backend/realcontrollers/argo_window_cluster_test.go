package realcontrollers

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// project creates an AppProject like the default one, with sync windows.
func (e *env) project(name string, windows ...map[string]any) {
	e.t.Helper()
	ws := make([]any, len(windows))
	for i, w := range windows {
		ws[i] = w
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
		"metadata": map[string]any{"name": name, "namespace": testargocd.Namespace},
		"spec": map[string]any{
			"sourceRepos":              []any{"*"},
			"destinations":             []any{map[string]any{"server": "*", "namespace": "*"}},
			"clusterResourceWhitelist": []any{map[string]any{"group": "*", "kind": "*"}},
			"syncWindows":              ws,
		},
	}}
	ri := e.dyn.Resource(argocd.AppProjects).Namespace(testargocd.Namespace)
	if _, err := ri.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = ri.Delete(context.Background(), name, metav1.DeleteOptions{}) })
}

// setProject moves an app into another project.
func (e *env) setProject(app, project string) {
	e.t.Helper()
	e.patchApp(app, map[string]any{"spec": map[string]any{"project": project}})
}

func (e *env) patchApp(name string, patch map[string]any) {
	e.t.Helper()
	body, _ := json.Marshal(patch)
	if _, err := e.dyn.Resource(argocd.Applications).Namespace(testargocd.Namespace).Patch(context.Background(), name,
		types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func TestClusterRealArgoSyncWindowRefusedByDriftdeckAndHeldByTheController(t *testing.T) {
	e := realArgo(t)
	proj := "frozen-" + e.dest
	e.project(proj, map[string]any{"kind": "deny", "schedule": "0 0 * * *", "duration": "24h",
		"applications": []any{"*"}, "manualSync": false})
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"windowed/cm.yaml": testargocd.ConfigMap("windowed", "v1")})
	e.app("windowed", repo, map[string]any{})
	e.setProject("windowed", proj)
	e.waitFor("the app compared in its project", func() (bool, string) {
		o := e.get("windowed")
		return str(o, "status", "sync", "status") == "OutOfSync" && str(o, "status", "sync", "revision") == v1, str(o, "status", "sync", "status")
	})

	err := e.try(actions.Request{Kind: actions.Sync, Key: e.key("windowed"), Reason: "during the freeze", Revision: v1})
	if !writeguard.IsRefusal(err) || !strings.Contains(err.Error(), "sync window") {
		t.Fatalf("a sync inside a deny window: %v, want a refusal naming the sync window", err)
	}
	if _, set := e.get("windowed")["operation"]; set {
		t.Fatal("the refused sync wrote an operation")
	}

	// The same operation written by hand: the controller starts it, keeps
	// it Running with its window message, and applies nothing.
	e.patchApp("windowed", map[string]any{
		"operation": map[string]any{
			"initiatedBy": map[string]any{"username": e.actor, "automated": false},
			"sync":        map[string]any{"revision": v1, "syncStrategy": map[string]any{"hook": map[string]any{}}},
		},
		"status": map[string]any{"operationState": nil},
	})
	e.waitFor("the controller to hold the operation for the window", func() (bool, string) {
		o := e.get("windowed")
		phase, msg := str(o, "status", "operationState", "phase"), str(o, "status", "operationState", "message")
		return phase == "Running" && strings.Contains(msg, "blocked by sync window"), phase + ": " + msg
	})
	e.holds("the window (nothing applied)", 5*time.Second, func() (bool, string) {
		o := e.get("windowed")
		return e.configValue("windowed") == "" && str(o, "status", "operationState", "phase") == "Running",
			"live " + e.configValue("windowed") + ", phase " + str(o, "status", "operationState", "phase")
	})
	// driftdeck reads it as blocked by the window.
	u := argocd.Convert("test", e.get("windowed"))
	if !strings.Contains(u.Argo.PhaseMessage, "sync window") {
		t.Errorf("driftdeck reads the held operation's message as %q", u.Argo.PhaseMessage)
	}
}
