package realcontrollers

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
)

// waved is a manifest annotated with its sync wave.
func waved(kind, apiVersion, name string, wave int, spec string) string {
	return fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  annotations:\n    argocd.argoproj.io/sync-wave: \"%d\"\n%s", apiVersion, kind, name, wave, spec)
}

// A deployment that never turns healthy (no kube-controller-manager runs
// on the test control plane) holds the real controller's sync in wave 0:
// driftdeck's why line says the phase, that wave among the app's, and the
// resource it waits on, alike from the whole object and the slim decoder.
func TestClusterRealArgoRunningSyncSaysItsPhaseAndWave(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	repo.Commit("v1", map[string]string{
		"waves/cm.yaml": waved("ConfigMap", "v1", "settings", -1, "data:\n  k: v\n"),
		"waves/deploy.yaml": waved("Deployment", "apps/v1", "web", 0, `spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
`),
		"waves/svc.yaml": waved("Service", "v1", "web", 1, "spec:\n  ports:\n  - port: 80\n  selector: {app: web}\n"),
	})
	e.app("waves", repo, map[string]any{})
	e.waitFor("the first comparison", func() (bool, string) { return str(e.get("waves"), "status", "sync", "status") == "OutOfSync", "" })
	e.do(actions.Request{Kind: actions.Sync, Key: e.key("waves"), Reason: "a sync that waits in wave 0"})
	e.waitFor("the sync to wait on the Deployment", func() (bool, string) {
		o := e.get("waves")
		msg := str(o, "status", "operationState", "message")
		return str(o, "status", "operationState", "phase") == "Running" && strings.Contains(msg, "apps/Deployment/web"), msg
	})

	o := e.get("waves")
	data, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	slim, err := argocd.DecodeSlim(data)
	if err != nil {
		t.Fatal(err)
	}
	for how, obj := range map[string]map[string]any{"whole": o, "slim": slim} {
		u := argocd.Convert("test", obj)
		want := "sync running (Sync phase, wave 0 of -1..1): waiting for healthy state of apps/Deployment/web"
		if !strings.HasPrefix(u.RunReason, want) {
			t.Errorf("%s: why %q; want it to start %q (resources %v)", how, u.RunReason, want, o["status"].(map[string]any)["resources"])
		}
	}
	e.do(actions.Request{Kind: actions.Terminate, Key: e.key("waves"), Reason: "test done"})
}
