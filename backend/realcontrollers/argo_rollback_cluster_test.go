package realcontrollers

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// historyID is the id of the newest history entry at rev.
func (e *env) historyID(name, rev string) int64 {
	e.t.Helper()
	history, _, _ := unstructured.NestedSlice(e.get(name), "status", "history")
	for i := len(history) - 1; i >= 0; i-- {
		h := history[i].(map[string]any)
		if h["revision"] == rev {
			id, _ := h["id"].(int64)
			return id
		}
	}
	e.t.Fatalf("no history entry of %s at %s: %v", name, rev, history)
	return 0
}

func TestClusterRealArgoRollbackAppliesTheHistoryEntrysRevision(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"rolled/cm.yaml": testargocd.ConfigMap("rolled", "v1")})
	e.app("rolled", repo, autoSync(false))
	e.synced("rolled", v1)
	v2 := repo.Commit("v2", map[string]string{"rolled/cm.yaml": testargocd.ConfigMap("rolled", "v2")})
	e.do(actions.Request{Kind: actions.HardRefresh, Key: e.key("rolled")})
	e.synced("rolled", v2)
	e.waitFor("the ConfigMap at v2", func() (bool, string) { return e.configValue("rolled") == "v2", e.configValue("rolled") })
	id := e.historyID("rolled", v1)

	// Auto-sync would sync forward again: driftdeck refuses before writing.
	err := e.try(actions.Request{Kind: actions.Rollback, Key: e.key("rolled"), HistoryID: id, Reason: "v2 is broken"})
	if !writeguard.IsRefusal(err) || !strings.Contains(err.Error(), "pause it first") {
		t.Fatalf("a rollback with auto-sync on: %v, want a refusal asking to pause first", err)
	}
	if _, set := e.get("rolled")["operation"]; set {
		t.Fatal("the refused rollback wrote an operation")
	}

	e.do(actions.Request{Kind: actions.Pause, Key: e.key("rolled"), Reason: "roll back v2"})
	e.do(actions.Request{Kind: actions.Rollback, Key: e.key("rolled"), HistoryID: id, Reason: "v2 is broken"})
	e.waitFor("the rollback to succeed", func() (bool, string) {
		o := e.get("rolled")
		p := str(o, "status", "operationState", "phase")
		return p == "Succeeded" && str(o, "status", "operationState", "syncResult", "revision") == v1,
			p + " at " + str(o, "status", "operationState", "syncResult", "revision")
	})
	if got := e.configValue("rolled"); got != "v1" {
		t.Errorf("after the rollback the live value is %q, want the history entry's v1", got)
	}
	// The branch still points at v2: once the controller compares again
	// after the operation, the app is behind its target.
	e.waitFor("the app compared OutOfSync against the branch's v2", func() (bool, string) {
		o := e.get("rolled")
		s, r := str(o, "status", "sync", "status"), str(o, "status", "sync", "revision")
		return s == "OutOfSync" && r == v2, s + " at " + r
	})
	o := e.get("rolled")
	if got := str(o, "status", "operationState", "operation", "initiatedBy", "username"); got != e.actor {
		t.Errorf("rollback initiated by %q, want %q", got, e.actor)
	}
	// The pause holds: the controller does not sync forward to v2 by itself.
	e.holds("the rollback (no auto-sync forward while paused)", 5*time.Second, func() (bool, string) {
		return e.configValue("rolled") == "v1", e.configValue("rolled")
	})
}
