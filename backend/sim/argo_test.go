package sim_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/sim"
)

const repo = "https://git.example.com/shop/deploy.git"

// application returns an Application synced at rev, last synced by a
// successful manual sync, with history entries 1..3.
func application(ns, name string, automated map[string]any, rev string) map[string]any {
	spec := map[string]any{
		"project":     "default",
		"source":      map[string]any{"repoURL": repo, "path": "apps/" + name, "targetRevision": "main"},
		"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": name},
	}
	if automated != nil {
		spec["syncPolicy"] = map[string]any{"automated": automated, "syncOptions": []any{"CreateNamespace=true"}}
	}
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	var history []any
	for i := 1; i <= 3; i++ {
		history = append(history, map[string]any{"id": int64(i), "revision": sha(100 + i), "deployedAt": past, "deployStartedAt": past})
	}
	return map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec":     spec,
		"status": map[string]any{
			"sync":   map[string]any{"status": "Synced", "revision": rev},
			"health": map[string]any{"status": "Healthy"},
			"resources": []any{
				map[string]any{"group": "apps", "version": "v1", "kind": "Deployment", "namespace": name, "name": name, "status": "Synced"},
				map[string]any{"version": "v1", "kind": "Service", "namespace": name, "name": name, "status": "Synced"},
				map[string]any{"version": "v1", "kind": "ConfigMap", "namespace": name, "name": name + "-config", "status": "Synced"},
			},
			"history": history,
			"operationState": map[string]any{
				"phase": "Succeeded", "message": "successfully synced (all tasks run)", "startedAt": past, "finishedAt": past,
				"operation":  map[string]any{"sync": map[string]any{"revision": rev}, "initiatedBy": map[string]any{"username": "admin"}},
				"syncResult": map[string]any{"revision": rev},
			},
		},
	}
}

func project(ns, name string, windows ...map[string]any) map[string]any {
	ws := make([]any, len(windows))
	for i, w := range windows {
		ws[i] = w
	}
	return map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec":     map[string]any{"syncWindows": ws},
	}
}

// denyAll is a deny window open now and all day, for every app.
var denyAll = map[string]any{"kind": "deny", "schedule": "0 0 * * *", "duration": "24h", "applications": []any{"*"}}

func startArgo(t *testing.T, dyn dynamic.Interface, ns string, opts sim.ArgoOptions) *sim.Argo {
	t.Helper()
	opts.Namespace, opts.ControlNamespace = ns, ns
	opts.SyncDuration = step
	if opts.SelfHealDelay == 0 {
		opts.SelfHealDelay = step
	}
	opts.WindowRecheck = step
	opts.OnError = func(err error) { t.Logf("controller: %v", err) }
	a := sim.NewArgo(dyn, opts)
	run(t, a.Run, a.Ready())
	return a
}

// manualSync writes the operation driftdeck writes for a manual sync.
func manualSync(t *testing.T, dyn dynamic.Interface, ns, name string, syncExtra map[string]any) {
	t.Helper()
	sync := map[string]any{"revision": "", "syncStrategy": map[string]any{"hook": map[string]any{}}}
	for k, v := range syncExtra {
		sync[k] = v
	}
	patch(t, dyn, argocd.Applications, ns, name, types.MergePatchType, map[string]any{
		"operation": map[string]any{
			"initiatedBy": map[string]any{"username": "oncall@example.com", "automated": false},
			"info":        []any{map[string]any{"name": "Reason", "value": "hotfix"}},
			"sync":        sync,
		},
		"status": map[string]any{"operationState": nil},
	})
}

func phaseOf(r *objread.Reader) string { return r.Str("status", "operationState", "phase") }

func manualSyncRunsThenSucceedsWithHistory(t *testing.T, dyn dynamic.Interface, ns string) {
	rev := sha(7)
	create(t, dyn, argocd.Applications, application(ns, "cart", nil, rev))
	startArgo(t, dyn, ns, sim.ArgoOptions{})
	manualSync(t, dyn, ns, "cart", nil)

	eventually(t, 5*time.Second, "operation picked up", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "cart")
		return phaseOf(r) == "Running" && r.Has("operation") && r.Str("status", "operationState", "operation", "initiatedBy", "username") == "oncall@example.com" &&
			!r.Time("status", "operationState", "startedAt").IsZero() && !r.Has("status", "operationState", "finishedAt"), phaseOf(r)
	})
	eventually(t, 5*time.Second, "sync finished", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "cart")
		return phaseOf(r) == "Succeeded", phaseOf(r)
	})
	r := get(t, dyn, argocd.Applications, ns, "cart")
	if r.Has("operation") {
		t.Error("operation not cleared after the sync succeeded")
	}
	if got := r.Str("status", "operationState", "syncResult", "revision"); got != rev {
		t.Errorf("syncResult.revision = %q, want %q", got, rev)
	}
	if r.Str("status", "sync", "status") != "Synced" || r.Str("status", "sync", "revision") != rev {
		t.Errorf("sync = %v", r.Map("status", "sync"))
	}
	hist := r.Objects("status", "history")
	if len(hist) != 4 {
		t.Fatalf("history has %d entries, want 4", len(hist))
	}
	last := hist[3]
	if last.Int("id") != 4 || last.Str("revision") != rev || last.Str("initiatedBy", "username") != "oncall@example.com" ||
		last.Time("deployedAt").IsZero() || last.Time("deployStartedAt").IsZero() || last.Str("source", "repoURL") != repo {
		t.Errorf("new history entry = %v", last.Map())
	}
}

func failingSyncFailsAndAutoSyncDoesNotRetrySameRevision(t *testing.T, dyn dynamic.Interface, ns string) {
	git := sim.NewGit()
	git.Set(repo, "main", sha(1))
	create(t, dyn, argocd.Applications, application(ns, "payments", map[string]any{"prune": true}, sha(1)))
	const failure = `one or more objects failed to apply, reason: Deployment.apps "payments" is invalid`
	startArgo(t, dyn, ns, sim.ArgoOptions{Git: git, Behavior: func(_, name string) sim.AppBehavior {
		return sim.AppBehavior{FailWith: failure}
	}})
	newRev := git.Push(repo, "main")

	eventually(t, 5*time.Second, "automated sync failed", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "payments")
		return phaseOf(r) == "Failed" && !r.Has("operation"), phaseOf(r)
	})
	r := get(t, dyn, argocd.Applications, ns, "payments")
	if got := r.Str("status", "operationState", "message"); got != failure {
		t.Errorf("message = %q", got)
	}
	if auto, _ := r.Bool("status", "operationState", "operation", "initiatedBy", "automated"); !auto {
		t.Error("the sync after a push was not automated")
	}
	if n := len(r.Slice("status", "history")); n != 3 {
		t.Errorf("a failed sync added history: %d entries", n)
	}
	if r.Str("status", "sync", "status") != "OutOfSync" || r.Str("status", "sync", "revision") != newRev {
		t.Errorf("sync = %v", r.Map("status", "sync"))
	}
	eventually(t, 5*time.Second, "SyncError condition", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "payments")
		for _, c := range r.Objects("status", "conditions") {
			if c.Str("type") == "SyncError" && strings.HasPrefix(c.Str("message"), "Failed last sync attempt to ["+newRev+"]") {
				return true, ""
			}
		}
		return false, fmt.Sprint(r.Slice("status", "conditions"))
	})
	never(t, 10*step, "auto-sync retried the failed revision", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "payments")
		return r.Has("operation"), phaseOf(r)
	})
}

func terminateEndsAHungSync(t *testing.T, dyn dynamic.Interface, ns string) {
	create(t, dyn, argocd.Applications, application(ns, "search", nil, sha(2)))
	startArgo(t, dyn, ns, sim.ArgoOptions{Behavior: func(_, _ string) sim.AppBehavior { return sim.AppBehavior{Hang: true} }})
	manualSync(t, dyn, ns, "search", nil)
	eventually(t, 5*time.Second, "running", func() (bool, string) {
		return phaseOf(get(t, dyn, argocd.Applications, ns, "search")) == "Running", ""
	})
	never(t, 5*step, "hung sync finished", func() (bool, string) {
		p := phaseOf(get(t, dyn, argocd.Applications, ns, "search"))
		return p != "Running", p
	})
	// driftdeck's terminate: test the phase, then replace it.
	patch(t, dyn, argocd.Applications, ns, "search", types.JSONPatchType, []any{
		map[string]any{"op": "test", "path": "/status/operationState/phase", "value": "Running"},
		map[string]any{"op": "replace", "path": "/status/operationState/phase", "value": "Terminating"},
	})
	eventually(t, 5*time.Second, "terminated", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "search")
		return phaseOf(r) == "Failed" && r.Str("status", "operationState", "message") == "Operation terminated" && !r.Has("operation"), phaseOf(r)
	})
}

func syncWindowHoldsOperationUntilItOpens(t *testing.T, dyn dynamic.Interface, ns string) {
	create(t, dyn, argocd.AppProjects, project(ns, "default", denyAll))
	create(t, dyn, argocd.Applications, application(ns, "ledger", nil, sha(3)))
	startArgo(t, dyn, ns, sim.ArgoOptions{})
	manualSync(t, dyn, ns, "ledger", nil)
	eventually(t, 5*time.Second, "blocked", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "ledger")
		return phaseOf(r) == "Running" && r.Str("status", "operationState", "message") == "Sync operation blocked by sync window", phaseOf(r)
	})
	never(t, 10*step, "blocked sync finished", func() (bool, string) {
		p := phaseOf(get(t, dyn, argocd.Applications, ns, "ledger"))
		return p != "Running", p
	})
	// The deny window becomes one that lets manual syncs through.
	allowManual := map[string]any{"kind": "deny", "schedule": "0 0 * * *", "duration": "24h", "applications": []any{"*"}, "manualSync": true}
	patch(t, dyn, argocd.AppProjects, ns, "default", types.MergePatchType, map[string]any{"spec": map[string]any{"syncWindows": []any{allowManual}}})
	eventually(t, 5*time.Second, "sync after the window allowed it", func() (bool, string) {
		p := phaseOf(get(t, dyn, argocd.Applications, ns, "ledger"))
		return p == "Succeeded", p
	})
}

func windowBlocksAutoSync(t *testing.T, dyn dynamic.Interface, ns string) {
	git := sim.NewGit()
	git.Set(repo, "main", sha(1))
	create(t, dyn, argocd.AppProjects, project(ns, "default", denyAll))
	create(t, dyn, argocd.Applications, application(ns, "web", map[string]any{}, sha(1)))
	startArgo(t, dyn, ns, sim.ArgoOptions{Git: git})
	git.Push(repo, "main")
	eventually(t, 5*time.Second, "out of sync", func() (bool, string) {
		s := get(t, dyn, argocd.Applications, ns, "web").Str("status", "sync", "status")
		return s == "OutOfSync", s
	})
	never(t, 10*step, "auto-sync through a deny window", func() (bool, string) {
		return get(t, dyn, argocd.Applications, ns, "web").Has("operation"), ""
	})
}

func pushAutoSyncsAndDisabledAutomationDoesNot(t *testing.T, dyn dynamic.Interface, ns string) {
	git := sim.NewGit()
	git.Set(repo, "main", sha(1))
	create(t, dyn, argocd.Applications, application(ns, "auto", map[string]any{"prune": true}, sha(1)))
	off := create(t, dyn, argocd.Applications, application(ns, "off", map[string]any{"enabled": false}, sha(1)))
	_, kept, _ := unstructured.NestedBool(off.Object, "spec", "syncPolicy", "automated", "enabled")
	startArgo(t, dyn, ns, sim.ArgoOptions{Git: git})
	head := git.Push(repo, "main")
	eventually(t, 5*time.Second, "auto-synced to the pushed commit", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "auto")
		hist := r.Objects("status", "history")
		ok := r.Str("status", "sync", "status") == "Synced" && r.Str("status", "sync", "revision") == head && len(hist) == 4
		if ok {
			auto, _ := hist[3].Bool("initiatedBy", "automated")
			ok = auto && hist[3].Str("revision") == head
		}
		return ok, fmt.Sprint(r.Map("status", "sync"))
	})
	if !kept {
		// This schema (Argo CD before 3.1) pruned automated.enabled: for the
		// controller the app is automated, and it syncs like the other.
		eventually(t, 5*time.Second, "the app whose enabled:false was pruned auto-synced", func() (bool, string) {
			r := get(t, dyn, argocd.Applications, ns, "off")
			auto, _ := r.Bool("status", "operationState", "operation", "initiatedBy", "automated")
			return auto && r.Str("status", "sync", "status") == "Synced", phaseOf(r)
		})
		return
	}
	r := get(t, dyn, argocd.Applications, ns, "off")
	if r.Str("status", "sync", "status") != "OutOfSync" || r.Str("status", "sync", "revision") != head {
		t.Errorf("disabled app sync = %v", r.Map("status", "sync"))
	}
	never(t, 5*step, "automated.enabled=false app synced", func() (bool, string) {
		return get(t, dyn, argocd.Applications, ns, "off").Has("operation"), ""
	})
}

func selfHealRevertsManualChangeOnlyWithSelfHeal(t *testing.T, dyn dynamic.Interface, ns string) {
	create(t, dyn, argocd.Applications, application(ns, "healer", map[string]any{"selfHeal": true}, sha(5)))
	create(t, dyn, argocd.Applications, application(ns, "plain", map[string]any{}, sha(5)))
	a := startArgo(t, dyn, ns, sim.ArgoOptions{})
	for _, name := range []string{"healer", "plain"} {
		if err := a.ManualChange(context.Background(), ns, name); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 5*time.Second, "self-heal reverted the change", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "healer")
		auto, _ := r.Bool("status", "operationState", "operation", "initiatedBy", "automated")
		return r.Str("status", "sync", "status") == "Synced" && phaseOf(r) == "Succeeded" && auto, phaseOf(r)
	})
	never(t, 10*step, "a change reverted without self-heal", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "plain")
		return r.Str("status", "sync", "status") != "OutOfSync" || r.Has("operation"), r.Str("status", "sync", "status")
	})
}

func refreshAnnotationIsHandled(t *testing.T, dyn dynamic.Interface, ns string) {
	create(t, dyn, argocd.Applications, application(ns, "cart", nil, sha(7)))
	startArgo(t, dyn, ns, sim.ArgoOptions{})
	before := time.Now().Add(-time.Second)
	patch(t, dyn, argocd.Applications, ns, "cart", types.MergePatchType,
		map[string]any{"metadata": map[string]any{"annotations": map[string]any{argocd.AnnotationRefresh: "hard"}}})
	eventually(t, 5*time.Second, "refresh handled", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "cart")
		_, pending := r.StringMap("metadata", "annotations")[argocd.AnnotationRefresh]
		return !pending && r.Time("status", "reconciledAt").After(before), r.Str("status", "reconciledAt")
	})
}

func pruneConfirmationWaitsForApproval(t *testing.T, dyn dynamic.Interface, ns string) {
	obj := application(ns, "reports", nil, sha(9))
	res := obj["status"].(map[string]any)["resources"].([]any)
	obj["status"].(map[string]any)["resources"] = append(res, map[string]any{
		"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "reports", "name": "reports-worker",
		"status": "OutOfSync", "requiresPruning": true,
	})
	create(t, dyn, argocd.Applications, obj)
	startArgo(t, dyn, ns, sim.ArgoOptions{})
	manualSync(t, dyn, ns, "reports", map[string]any{"prune": true, "syncOptions": []any{"Prune=confirm"}})
	eventually(t, 5*time.Second, "waiting for confirmation", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "reports")
		m := r.Str("status", "operationState", "message")
		return phaseOf(r) == "Running" && m == "waiting for pruning confirmation of apps/Deployment/reports-worker", m
	})
	// An approval older than the operation does not count.
	stale := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	patch(t, dyn, argocd.Applications, ns, "reports", types.MergePatchType,
		map[string]any{"metadata": map[string]any{"annotations": map[string]any{argocd.AnnotationDeletionApproved: stale}}})
	never(t, 10*step, "finished with a stale approval", func() (bool, string) {
		p := phaseOf(get(t, dyn, argocd.Applications, ns, "reports"))
		return p != "Running", p
	})
	now := time.Now().UTC().Format(time.RFC3339)
	patch(t, dyn, argocd.Applications, ns, "reports", types.MergePatchType,
		map[string]any{"metadata": map[string]any{"annotations": map[string]any{argocd.AnnotationDeletionApproved: now}}})
	eventually(t, 5*time.Second, "finished after approval", func() (bool, string) {
		p := phaseOf(get(t, dyn, argocd.Applications, ns, "reports"))
		return p == "Succeeded", p
	})
	r := get(t, dyn, argocd.Applications, ns, "reports")
	for _, res := range r.Objects("status", "resources") {
		if res.Str("name") == "reports-worker" {
			t.Error("the pruned resource is still listed")
		}
	}
	pruned := false
	for _, res := range r.Objects("status", "operationState", "syncResult", "resources") {
		pruned = pruned || (res.Str("name") == "reports-worker" && res.Str("status") == "Pruned")
	}
	if !pruned {
		t.Error("syncResult does not report the prune")
	}
}

func pushToAnotherPathOnlyMovesTheRevision(t *testing.T, dyn dynamic.Interface, ns string) {
	git := sim.NewGit()
	git.Set(repo, "main", sha(1))
	create(t, dyn, argocd.Applications, application(ns, "cart", map[string]any{}, sha(1)))
	startArgo(t, dyn, ns, sim.ArgoOptions{Git: git})
	other := git.Push(repo, "main", "apps/checkout")
	eventually(t, 5*time.Second, "revision moved", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "cart")
		return r.Str("status", "sync", "revision") == other, fmt.Sprint(r.Map("status", "sync"))
	})
	never(t, 5*step, "an untouched app drifted or synced", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "cart")
		return r.Str("status", "sync", "status") != "Synced" || r.Has("operation"), fmt.Sprint(r.Map("status", "sync"))
	})
	mine := git.Push(repo, "main", "apps/cart/overlays/prod")
	eventually(t, 5*time.Second, "synced to the commit that touched it", func() (bool, string) {
		r := get(t, dyn, argocd.Applications, ns, "cart")
		return phaseOf(r) == "Succeeded" && r.Str("status", "operationState", "syncResult", "revision") == mine, phaseOf(r)
	})
}

// argoScenarios run on the fake API here and on a real kube-apiserver in the
// TestCluster tests.
var argoScenarios = map[string]func(t *testing.T, dyn dynamic.Interface, ns string){
	"ManualSyncRunsThenSucceedsWithHistory":               manualSyncRunsThenSucceedsWithHistory,
	"FailingSyncFailsAndAutoSyncDoesNotRetrySameRevision": failingSyncFailsAndAutoSyncDoesNotRetrySameRevision,
	"TerminateEndsAHungSync":                              terminateEndsAHungSync,
	"SyncWindowHoldsOperationUntilItOpens":                syncWindowHoldsOperationUntilItOpens,
	"WindowBlocksAutoSync":                                windowBlocksAutoSync,
	"PushAutoSyncsAndDisabledAutomationDoesNot":           pushAutoSyncsAndDisabledAutomationDoesNot,
	"SelfHealRevertsManualChangeOnlyWithSelfHeal":         selfHealRevertsManualChangeOnlyWithSelfHeal,
	"RefreshAnnotationIsHandled":                          refreshAnnotationIsHandled,
	"PruneConfirmationWaitsForApproval":                   pruneConfirmationWaitsForApproval,
	"PushToAnotherPathOnlyMovesTheRevision":               pushToAnotherPathOnlyMovesTheRevision,
}

func TestArgoControllerOnFakeAPI(t *testing.T) {
	for name, scenario := range argoScenarios {
		t.Run(name, func(t *testing.T) { scenario(t, fakeAPI(), "argocd") })
	}
}
