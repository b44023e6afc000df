package realcontrollers

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
)

func autoSync(selfHeal bool) map[string]any {
	return map[string]any{"automated": map[string]any{"prune": true, "selfHeal": selfHeal}}
}

// synced waits until the controller reports the app Synced at rev.
func (e *env) synced(name, rev string) {
	e.t.Helper()
	e.waitFor(name+" Synced at "+rev[:7], func() (bool, string) {
		o := e.get(name)
		s, r := str(o, "status", "sync", "status"), str(o, "status", "sync", "revision")
		return s == "Synced" && r == rev, s + " at " + r
	})
}

func TestClusterRealArgoPauseHoldsAcrossANewCommitAndResumeSyncsAndSelfHeals(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"paused/cm.yaml": testargocd.ConfigMap("settings", "v1")})
	e.app("paused", repo, autoSync(true))
	e.synced("paused", v1)
	e.waitFor("the ConfigMap at v1", func() (bool, string) { return e.configValue("settings") == "v1", e.configValue("settings") })
	// The comparison reads Synced as soon as the ConfigMap is applied; the
	// operation's result is written when the sync ends, and the pause below
	// is checked against it.
	e.waitFor("the auto-sync's operation done at v1", func() (bool, string) {
		o := e.get("paused")
		phase, rev := str(o, "status", "operationState", "phase"), str(o, "status", "operationState", "syncResult", "revision")
		return phase == "Succeeded" && rev == v1, phase + " at " + rev
	})

	e.do(actions.Request{Kind: actions.Pause, Key: e.key("paused"), Reason: "INC-1: hotfix in place"})
	v2 := repo.Commit("v2", map[string]string{"paused/cm.yaml": testargocd.ConfigMap("settings", "v2")})
	e.do(actions.Request{Kind: actions.HardRefresh, Key: e.key("paused")})
	e.waitFor("the paused app compared at the new commit", func() (bool, string) {
		o := e.get("paused")
		return str(o, "status", "sync", "revision") == v2 && str(o, "status", "sync", "status") == "OutOfSync",
			str(o, "status", "sync", "status") + " at " + str(o, "status", "sync", "revision")
	})
	e.holds("the pause (no auto-sync to the new commit)", 8*time.Second, func() (bool, string) {
		return e.configValue("settings") == "v1" && str(e.get("paused"), "status", "operationState", "syncResult", "revision") == v1,
			"live value " + e.configValue("settings")
	})

	e.do(actions.Request{Kind: actions.Resume, Key: e.key("paused"), Reason: "INC-1 closed"})
	e.waitFor("auto-sync to the new commit after resume", func() (bool, string) { return e.configValue("settings") == "v2", e.configValue("settings") })
	e.synced("paused", v2)

	// Self-heal is back too: a live edit is reverted.
	cm, err := e.kube.CoreV1().ConfigMaps(e.dest).Get(t.Context(), "settings", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["value"] = "edited by hand"
	if _, err := e.kube.CoreV1().ConfigMaps(e.dest).Update(t.Context(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitFor("self-heal to revert a live edit", func() (bool, string) { return e.configValue("settings") == "v2", e.configValue("settings") })
}

func TestClusterRealArgoFreezeAndThawSeveralApps(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	names := []string{"freeze-a", "freeze-b"}
	v1 := repo.Commit("v1", map[string]string{"freeze-a/cm.yaml": testargocd.ConfigMap("frozen-a", "v1"), "freeze-b/cm.yaml": testargocd.ConfigMap("frozen-b", "v1")})
	var keys []model.Key
	for _, n := range names {
		e.app(n, repo, autoSync(false))
		e.synced(n, v1)
		keys = append(keys, e.key(n))
	}
	for _, o := range e.exec.Bulk(t.Context(), actions.BulkRequest{Kind: actions.Pause, Keys: keys, Reason: "INC-2 freeze"}) {
		if o.Outcome != actions.OutcomeApplied {
			t.Fatalf("freeze of %s: %s %s %v", o.Key.Ref(), o.Outcome, o.Why, o.Err)
		}
	}
	v2 := repo.Commit("v2", map[string]string{"freeze-a/cm.yaml": testargocd.ConfigMap("frozen-a", "v2"), "freeze-b/cm.yaml": testargocd.ConfigMap("frozen-b", "v2")})
	for _, n := range names {
		e.do(actions.Request{Kind: actions.HardRefresh, Key: e.key(n)})
	}
	for _, n := range names {
		e.waitFor(n+" compared at the new commit", func() (bool, string) {
			return str(e.get(n), "status", "sync", "revision") == v2, str(e.get(n), "status", "sync", "revision")
		})
	}
	e.holds("the freeze", 6*time.Second, func() (bool, string) {
		for _, n := range names {
			if r := str(e.get(n), "status", "operationState", "syncResult", "revision"); r != v1 {
				return false, n + " synced to " + r
			}
		}
		return true, ""
	})
	for _, o := range e.exec.Bulk(t.Context(), actions.BulkRequest{Kind: actions.Resume, Keys: keys, Reason: "INC-2 over"}) {
		if o.Outcome != actions.OutcomeApplied {
			t.Fatalf("thaw of %s: %s %s %v", o.Key.Ref(), o.Outcome, o.Why, o.Err)
		}
	}
	for _, n := range names {
		e.synced(n, v2)
	}
}

func TestClusterRealArgoSyncSucceedsAsTheActorWithTheReason(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"manual/cm.yaml": testargocd.ConfigMap("manual", "v1")})
	e.app("manual", repo, map[string]any{})
	e.waitFor("the manual app compared", func() (bool, string) {
		o := e.get("manual")
		return str(o, "status", "sync", "status") == "OutOfSync" && str(o, "status", "sync", "revision") == v1, str(o, "status", "sync", "status")
	})
	e.do(actions.Request{Kind: actions.Sync, Key: e.key("manual"), Reason: "roll the fix", Revision: v1})
	e.waitFor("the sync to succeed", func() (bool, string) {
		p := str(e.get("manual"), "status", "operationState", "phase")
		return p == "Succeeded", p
	})
	o := e.get("manual")
	if got := str(o, "status", "operationState", "syncResult", "revision"); got != v1 {
		t.Errorf("synced revision %s, want the approved %s", got, v1)
	}
	if got := str(o, "status", "operationState", "operation", "initiatedBy", "username"); got != e.actor {
		t.Errorf("initiatedBy %q, want the real identity %q", got, e.actor)
	}
	if e.configValue("manual") != "v1" {
		t.Errorf("the ConfigMap was not applied: %q", e.configValue("manual"))
	}
	// Argo CD's history entries keep no operation info: the reason stays
	// with the operation the controller ran, beside the entry it added.
	info := fmt.Sprint(o["status"].(map[string]any)["operationState"].(map[string]any)["operation"].(map[string]any)["info"])
	if !strings.Contains(info, "roll the fix") {
		t.Errorf("the operation the controller ran lost the reason: info %s", info)
	}
	history, _, _ := unstructured.NestedSlice(o, "status", "history")
	if len(history) == 0 {
		t.Fatal("no history entry")
	}
	last := history[len(history)-1].(map[string]any)
	if last["revision"] != v1 || fmt.Sprint(last["initiatedBy"]) != fmt.Sprint(map[string]any{"username": e.actor}) {
		t.Errorf("the history entry does not name the revision and the actor: %v", last)
	}
}

func TestClusterRealArgoRefreshAndHardRefreshAreHandled(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"refreshed/cm.yaml": testargocd.ConfigMap("refreshed", "v1")})
	e.app("refreshed", repo, map[string]any{})
	e.waitFor("the first comparison", func() (bool, string) {
		return str(e.get("refreshed"), "status", "reconciledAt") != "", ""
	})
	for _, kind := range []actions.Kind{actions.Refresh, actions.HardRefresh} {
		before := str(e.get("refreshed"), "status", "reconciledAt")
		// reconciledAt has a resolution of seconds.
		time.Sleep(1100 * time.Millisecond)
		e.do(actions.Request{Kind: kind, Key: e.key("refreshed")})
		e.waitFor(string(kind)+" handled (annotation removed, reconciledAt advanced)", func() (bool, string) {
			o := e.get("refreshed")
			pending := refreshPending(o)
			now := str(o, "status", "reconciledAt")
			return !pending && now != before, fmt.Sprintf("annotation pending %v, reconciledAt %s (was %s)", pending, now, before)
		})
	}
	if got := str(e.get("refreshed"), "status", "sync", "revision"); got != v1 {
		t.Errorf("compared revision %s, want %s", got, v1)
	}
}

// hookJob is a PreSync hook that never finishes: no kube-controller-manager
// runs on the test control plane, so its Job never gets a pod.
const hookJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: %s
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: wait
        image: busybox
        command: ["true"]
`

func TestClusterRealArgoTerminateEndsASyncHungOnAHook(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	repo.Commit("v1", map[string]string{
		"hooked/cm.yaml":   testargocd.ConfigMap("hooked", "v1"),
		"hooked/hook.yaml": fmt.Sprintf(hookJob, "presync-"+e.dest),
	})
	e.app("hooked", repo, map[string]any{})
	e.waitFor("the first comparison", func() (bool, string) { return str(e.get("hooked"), "status", "sync", "status") == "OutOfSync", "" })
	e.do(actions.Request{Kind: actions.Sync, Key: e.key("hooked"), Reason: "start a sync that hangs"})
	e.waitFor("the sync to wait on its PreSync hook", func() (bool, string) {
		o := e.get("hooked")
		return str(o, "status", "operationState", "phase") == "Running" && strings.Contains(str(o, "status", "operationState", "message"), "presync-"+e.dest),
			str(o, "status", "operationState", "phase") + ": " + str(o, "status", "operationState", "message")
	})

	// driftdeck calls it stuck by its rule once it runs past the threshold.
	u := argocd.Convert("test", e.get("hooked"))
	if want := "sync running (PreSync phase): waiting for completion of hook batch/Job/presync-" + e.dest; !strings.HasPrefix(u.RunReason, want) {
		t.Errorf("why %q; want it to start %q", u.RunReason, want)
	}
	model.Derive(u, time.Now().Add(time.Hour), model.DefaultThresholds)
	if u.Run != model.Stuck || u.StuckRule == "" {
		t.Fatalf("a sync running for an hour on a hook: run %s, rule %q, want stuck with a rule", u.Run, u.StuckRule)
	}

	terminate := actions.Request{Kind: actions.Terminate, Key: e.key("hooked"), Reason: "hook hangs"}
	e.do(terminate)
	// The controller can write Running back from a copy it read before the
	// terminate (argocd app terminate-op meets the same race): driftdeck's
	// settle then reports the terminate not in effect, and the operator
	// terminates again. The test does what that operator does.
	again, last := 0, time.Now()
	e.waitFor("the operation to end terminated", func() (bool, string) {
		o := e.get("hooked")
		phase, msg := str(o, "status", "operationState", "phase"), str(o, "status", "operationState", "message")
		if phase == "Running" && time.Since(last) > 5*time.Second && again < 3 {
			again, last = again+1, time.Now()
			t.Logf("the operation is Running again: terminate again (%d)", again)
			_ = e.try(terminate)
		}
		return (phase == "Failed" || phase == "Error") && strings.Contains(msg, "terminated"), phase + ": " + msg
	})
}
