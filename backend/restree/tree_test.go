package restree

import (
	"fmt"
	"strings"
	"testing"
)

// shape renders rows as "  Kind/name Health" lines, indented by depth.
func shape(t *Tree) string {
	var b strings.Builder
	for _, r := range t.Rows() {
		fmt.Fprintf(&b, "%s%s/%s %s\n", strings.Repeat("  ", r.Depth), r.Node.Kind, r.Node.Name, r.Node.Health)
	}
	return b.String()
}

func TestBuildNestsReplicaSetsAndPodsUnderTheirDeployment(t *testing.T) {
	app := application([]any{
		managed("", "Service", "shop", "api", "Synced"),
		managed("apps", "Deployment", "shop", "api", "OutOfSync"),
	}, nil)
	live := []map[string]any{
		deployment("shop", "api", "d1", 2, 2, 1),
		replicaSet("shop", "api-7f9", "rs1", "d1", 2, 1),
		replicaSet("shop", "api-5c1", "rs0", "d1", 0, 0),
		readyPod("shop", "api-7f9-a", "p1", "rs1"),
		crashingPod("shop", "api-7f9-b", "p2", "rs1"),
		obj("v1", "Service", "shop", "api", "s1", "", nil),
		readyPod("shop", "unrelated", "p9", "someone-else"),
	}
	tr := Build(app, live, LiveKinds())
	want := `Service/api Healthy
Deployment/api Progressing
  ReplicaSet/api-5c1 Healthy
  ReplicaSet/api-7f9 Progressing
    Pod/api-7f9-a Healthy
    Pod/api-7f9-b Degraded
`
	if got := shape(tr); got != want {
		t.Fatalf("tree:\n%s\nwant:\n%s", got, want)
	}
	d := tr.Find(Ref{Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "api"})
	if d.Sync != "OutOfSync" || !d.Managed || d.Reason != "Waiting for rollout to finish: 1 of 2 updated replicas are available..." {
		t.Errorf("deployment node: %+v", d)
	}
	p := tr.Find(Ref{Kind: "Pod", Namespace: "shop", Name: "api-7f9-b"})
	if !strings.Contains(p.Reason, "CrashLoopBackOff") || !strings.Contains(p.Reason, "back-off 5m0s") || p.Managed || p.Sync != "" {
		t.Errorf("crashing pod: %+v", p)
	}
	if s := tr.Summary(); s != "1 Degraded, 2 Progressing, 3 Healthy" {
		t.Errorf("summary %q", s)
	}
}

func TestBuildWithoutLiveObjectsKeepsWhatStatusSays(t *testing.T) {
	res := managed("apps", "Deployment", "shop", "api", "Synced")
	res["health"] = map[string]any{"status": "Degraded", "message": "recorded by Argo CD"}
	tr := Build(application([]any{res, managed("", "ConfigMap", "shop", "cfg", "Synced")}, nil), nil, nil)
	if got := shape(tr); got != "Deployment/api Degraded\nConfigMap/cfg Unknown\n" {
		t.Fatalf("tree:\n%s", got)
	}
	if tr.Roots[0].Reason != "recorded by Argo CD" {
		t.Errorf("reason %q", tr.Roots[0].Reason)
	}
	// Read live, a resource of a kind read that is not there is Missing; one
	// of a kind not read (ConfigMaps are not listed) has no health shown.
	tr = Build(application([]any{managed("", "ConfigMap", "shop", "cfg", "OutOfSync"), managed("", "Service", "shop", "api", "OutOfSync")}, nil), nil, LiveKinds())
	if got := shape(tr); got != "ConfigMap/cfg \nService/api Missing\n" {
		t.Errorf("absent resources:\n%s", got)
	}
	// A live object of a kind without health shows none.
	tr = Build(application([]any{managed("", "ConfigMap", "shop", "cfg", "Synced")}, nil), []map[string]any{obj("v1", "ConfigMap", "shop", "cfg", "c1", "", nil)}, LiveKinds())
	if h := tr.Roots[0].Health; h != "" || tr.Summary() != "" {
		t.Errorf("a ConfigMap has no health: %q, summary %q", h, tr.Summary())
	}
}

func TestBuildSurvivesOwnerCyclesAndSelfOwners(t *testing.T) {
	app := application([]any{managed("apps", "Deployment", "shop", "api", "Synced")}, nil)
	live := []map[string]any{
		deployment("shop", "api", "d1", 1, 1, 1),
		replicaSet("shop", "a", "rsA", "d1", 1, 1),
		replicaSet("shop", "b", "rsB", "rsA", 1, 1),
		readyPod("shop", "c", "pC", "rsB"),
	}
	// The deployment claims to be owned by the pod at the bottom: a cycle.
	live[0]["metadata"].(map[string]any)["ownerReferences"] = []any{map[string]any{"uid": "pC", "controller": true}}
	// A pod that owns itself.
	live = append(live, readyPod("shop", "self", "pS", "pS"))
	tr := Build(app, live, LiveKinds())
	want := "Deployment/api Healthy\n  ReplicaSet/a Healthy\n    ReplicaSet/b Healthy\n      Pod/c Healthy\n"
	if got := shape(tr); got != want {
		t.Fatalf("tree:\n%s\nwant:\n%s", got, want)
	}
}

func TestBuildStopsAtTheDepthLimitAndSaysSo(t *testing.T) {
	app := application([]any{managed("apps", "Deployment", "shop", "api", "Synced")}, nil)
	live := []map[string]any{deployment("shop", "api", "u0", 1, 1, 1)}
	for i := 1; i <= 40; i++ {
		live = append(live, replicaSet("shop", fmt.Sprint("rs", i), fmt.Sprint("u", i), fmt.Sprint("u", i-1), 1, 1))
	}
	tr := Build(app, live, LiveKinds())
	if n := len(tr.Rows()); n != maxDepth+1 {
		t.Errorf("%d rows, want %d (the deployment and %d levels)", n, maxDepth+1, maxDepth)
	}
	if len(tr.Notes) != 1 || !strings.Contains(tr.Notes[0], "deeper than 8") {
		t.Errorf("notes %q", tr.Notes)
	}
}

func TestBuildListsTheHooksOfTheOperationWithTheirJobsPods(t *testing.T) {
	app := application([]any{managed("apps", "Deployment", "shop", "api", "Synced")}, []any{
		map[string]any{"group": "batch", "version": "v1", "kind": "Job", "namespace": "shop", "name": "migrate", "hookType": "PreSync", "hookPhase": "Running", "message": "job is running"},
		map[string]any{"group": "batch", "version": "v1", "kind": "Job", "namespace": "shop", "name": "smoke", "hookType": "PostSync", "hookPhase": "Pending"},
		map[string]any{"group": "apps", "version": "v1", "kind": "Deployment", "namespace": "shop", "name": "api", "status": "Synced"},
	})
	job := obj("batch/v1", "Job", "shop", "migrate", "j1", "", map[string]any{"status": map[string]any{"active": int64(1)}})
	pod := obj("v1", "Pod", "shop", "migrate-x", "jp1", "j1", map[string]any{
		"spec": map[string]any{"restartPolicy": "Never"}, "status": map[string]any{"phase": "Running"},
	})
	tr := Build(app, []map[string]any{deployment("shop", "api", "d1", 1, 1, 1), job, pod}, LiveKinds())
	want := "Deployment/api Healthy\nJob/migrate Progressing\n  Pod/migrate-x Progressing\nJob/smoke Missing\n"
	if got := shape(tr); got != want {
		t.Fatalf("tree:\n%s\nwant:\n%s", got, want)
	}
	if h := tr.Hooks[0]; h.Hook != "PreSync" || h.HookPhase != "Running" || h.Reason != "job is running" {
		t.Errorf("hook %+v", h)
	}
	if tr.Operation != "Running" {
		t.Errorf("operation %q", tr.Operation)
	}
}
