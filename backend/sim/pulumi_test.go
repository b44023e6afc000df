package sim_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/sim"
)

const stackRepo = "https://git.example.com/infra/stacks.git"

func stackObj(ns, name string, spec map[string]any) map[string]any {
	s := map[string]any{"stack": "acme/" + name + "/prod", "projectRepo": stackRepo, "repoDir": "stacks/" + name}
	for k, v := range spec {
		s[k] = v
	}
	return map[string]any{
		"apiVersion": "pulumi.com/v1", "kind": "Stack",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec":     s,
	}
}

func startPulumi(t *testing.T, dyn dynamic.Interface, ns string, opts sim.PulumiOptions) *sim.Pulumi {
	t.Helper()
	opts.Namespace = ns
	opts.UpdateDuration = step
	if opts.Backoff == 0 {
		opts.Backoff = step
	}
	opts.OnError = func(err error) { t.Logf("operator: %v", err) }
	p := sim.NewPulumi(dyn, opts)
	run(t, p.Run, p.Ready())
	return p
}

func condition(r *objread.Reader, typ string) *objread.Reader {
	for _, c := range r.Objects("status", "conditions") {
		if c.Str("type") == typ {
			return c
		}
	}
	return objread.New(nil)
}

func stackState(r *objread.Reader) string {
	return fmt.Sprintf("last=%v current=%v conditions=%v", r.Map("status", "lastUpdate"), r.Map("status", "currentUpdate"), r.Slice("status", "conditions"))
}

func updatesOf(t *testing.T, dyn dynamic.Interface, ns, stack string) []unstructured.Unstructured {
	t.Helper()
	list, err := dyn.Resource(pulumiop.Updates).Namespace(ns).List(context.Background(), metav1.ListOptions{LabelSelector: pulumiop.LabelStackName + "=" + stack})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func newStackRunsAnUpdateAndBecomesReady(t *testing.T, dyn dynamic.Interface, ns string) {
	commit := sha(42)
	create(t, dyn, pulumiop.Stacks, stackObj(ns, "network", map[string]any{"commit": commit}))
	startPulumi(t, dyn, ns, sim.PulumiOptions{})

	var current string
	eventually(t, 5*time.Second, "update started", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "network")
		current = r.Str("status", "currentUpdate", "name")
		rc := condition(r, "Reconciling")
		return current != "" && rc.Str("reason") == "StackProcessing" && r.Int("status", "observedGeneration") == 1, stackState(r)
	})
	if !strings.HasPrefix(current, "network-") {
		t.Errorf("update name %q is not <stack>-<hex millis>", current)
	}
	// currentUpdate is recorded before the Update is created, as upstream.
	eventually(t, 5*time.Second, "update created", func() (bool, string) {
		return len(updatesOf(t, dyn, ns, "network")) == 1, ""
	})
	up := get(t, dyn, pulumiop.Updates, ns, current)
	if up.Str("spec", "type") != "up" || up.StringMap("metadata", "labels")[pulumiop.LabelStackName] != "network" || up.Str("spec", "message") != "Initial stack update" {
		t.Errorf("update = %v", up.Map())
	}
	eventually(t, 5*time.Second, "ready", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "network")
		ready := condition(r, "Ready")
		return ready.Str("status") == "True" && ready.Str("reason") == "ProcessingCompleted" && !r.Has("status", "currentUpdate"), stackState(r)
	})
	r := get(t, dyn, pulumiop.Stacks, ns, "network")
	last := r.At("status", "lastUpdate")
	if last.Str("state") != "succeeded" || last.Str("name") != current || last.Str("type") != "up" || last.Str("lastSuccessfulCommit") != commit ||
		last.Str("lastAttemptedCommit") != commit || last.Int("generation") != 1 || last.Int("failures") != 0 || last.Time("lastResyncTime").IsZero() {
		t.Errorf("lastUpdate = %v", last.Map())
	}
	if r.Has("status", "conditions") && condition(r, "Reconciling").Has("type") {
		t.Error("Reconciling still present when Ready")
	}
	up = get(t, dyn, pulumiop.Updates, ns, current)
	c := condition(up, "Complete")
	if c.Str("status") != "True" || c.Str("reason") != "Updated" || condition(up, "Failed").Str("reason") != "UpdateSucceeded" ||
		condition(up, "Progressing").Str("reason") != "Complete" || up.Time("status", "startTime").IsZero() || up.Time("status", "endTime").IsZero() {
		t.Errorf("update status = %v", up.Map("status"))
	}
	if n := len(updatesOf(t, dyn, ns, "network")); n != 1 {
		t.Errorf("%d updates for one commit", n)
	}
}

func reconcileRequestRunsAgainAndIsRecorded(t *testing.T, dyn dynamic.Interface, ns string) {
	create(t, dyn, pulumiop.Stacks, stackObj(ns, "dns", map[string]any{"commit": sha(1)}))
	startPulumi(t, dyn, ns, sim.PulumiOptions{})
	eventually(t, 5*time.Second, "first update done", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "dns")
		return r.Str("status", "lastUpdate", "state") == "succeeded", stackState(r)
	})
	patch(t, dyn, pulumiop.Stacks, ns, "dns", types.MergePatchType,
		map[string]any{"metadata": map[string]any{"annotations": map[string]any{pulumiop.AnnotationReconcileRequest: "tok-1"}}})
	eventually(t, 5*time.Second, "request handled", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "dns")
		return r.Str("status", "observedReconcileRequest") == "tok-1" && r.Str("status", "lastUpdate", "reconcileRequest") == "tok-1" &&
			!r.Has("status", "currentUpdate"), stackState(r)
	})
	if n := len(updatesOf(t, dyn, ns, "dns")); n != 2 {
		t.Errorf("%d updates, want 2", n)
	}
}

func previewStackRunsPreviews(t *testing.T, dyn dynamic.Interface, ns string) {
	create(t, dyn, pulumiop.Stacks, stackObj(ns, "analytics", map[string]any{"commit": sha(3), "preview": true}))
	startPulumi(t, dyn, ns, sim.PulumiOptions{})
	eventually(t, 5*time.Second, "preview done", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "analytics")
		return r.Str("status", "lastUpdate", "type") == "preview" && r.Str("status", "lastUpdate", "lastSuccessfulCommit") == sha(3) &&
			condition(r, "Ready").Str("status") == "True", stackState(r)
	})
}

// The failure counter follows upstream: the first failure at a generation
// records 0, so Stalled/UpdateFailed comes with the 4th failed attempt; a new
// reconcile request resets it.
func failuresCountThenStall(t *testing.T, dyn dynamic.Interface, ns string) {
	create(t, dyn, pulumiop.Stacks, stackObj(ns, "network", map[string]any{"commit": sha(5)}))
	lock := "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`."
	var attempts atomic.Int32
	startPulumi(t, dyn, ns, sim.PulumiOptions{Backoff: step / 4, Outcome: func(_ context.Context, _ *unstructured.Unstructured, _ string) sim.UpdateOutcome {
		attempts.Add(1)
		return sim.UpdateOutcome{FailWith: lock, FailReason: "Unknown"}
	}})
	seen := map[int64]bool{}
	eventually(t, 10*time.Second, "stalled", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "network")
		if r.Str("status", "lastUpdate", "state") == "failed" {
			seen[r.Int("status", "lastUpdate", "failures")] = true
			if rc := condition(r, "Reconciling"); rc.Str("reason") == "RetryingAfterFailure" &&
				rc.Str("message") != fmt.Sprintf("%d update failure(s)", r.Int("status", "lastUpdate", "failures")) {
				return false, "bad message: " + stackState(r)
			}
		}
		st := condition(r, "Stalled")
		return st.Str("status") == "True" && st.Str("reason") == "UpdateFailed", stackState(r)
	})
	r := get(t, dyn, pulumiop.Stacks, ns, "network")
	if msg := condition(r, "Stalled").Str("message"); msg != "up failed 3 times; not retrying until the spec or source changes" {
		t.Errorf("Stalled message = %q", msg)
	}
	if r.Str("status", "lastUpdate", "message") != lock {
		t.Errorf("lastUpdate.message = %q", r.Str("status", "lastUpdate", "message"))
	}
	if ready := condition(r, "Ready"); ready.Str("reason") != "NotReadyStalled" || condition(r, "Reconciling").Has("type") {
		t.Errorf("conditions = %v", r.Slice("status", "conditions"))
	}
	if !seen[0] || !seen[3] {
		t.Errorf("failure counts seen: %v", seen)
	}
	n := attempts.Load()
	never(t, 10*step, "retried after the stall", func() (bool, string) {
		return len(updatesOf(t, dyn, ns, "network")) > int(n), ""
	})
	patch(t, dyn, pulumiop.Stacks, ns, "network", types.MergePatchType,
		map[string]any{"metadata": map[string]any{"annotations": map[string]any{pulumiop.AnnotationReconcileRequest: "retry"}}})
	eventually(t, 5*time.Second, "ran again for the request, counter reset", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "network")
		return r.Str("status", "lastUpdate", "reconcileRequest") == "retry" && r.Int("status", "lastUpdate", "failures") == 0, stackState(r)
	})
}

func currentUpdateNamingMissingUpdateWedgesTheStack(t *testing.T, dyn dynamic.Interface, ns string) {
	create(t, dyn, pulumiop.Stacks, stackObj(ns, "edge", map[string]any{"commit": sha(8)}))
	patchStatus(t, dyn, pulumiop.Stacks, ns, "edge", map[string]any{
		"currentUpdate": map[string]any{"name": "edge-18f00000000", "generation": int64(1), "commit": sha(8)},
	}, "status")
	startPulumi(t, dyn, ns, sim.PulumiOptions{})
	eventually(t, 5*time.Second, "reconciling", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "edge")
		return condition(r, "Reconciling").Str("reason") == "StackProcessing", stackState(r)
	})
	never(t, 10*step, "a wedged stack ran an update", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "edge")
		return len(updatesOf(t, dyn, ns, "edge")) > 0 || r.Str("status", "currentUpdate", "name") != "edge-18f00000000", stackState(r)
	})
}

func approvedCommitIsApplied(t *testing.T, dyn dynamic.Interface, ns string) {
	create(t, dyn, pulumiop.Stacks, stackObj(ns, "cdn", map[string]any{"commit": sha(10)}))
	startPulumi(t, dyn, ns, sim.PulumiOptions{})
	eventually(t, 5*time.Second, "first commit applied", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "cdn")
		return r.Str("status", "lastUpdate", "lastSuccessfulCommit") == sha(10), stackState(r)
	})
	patch(t, dyn, pulumiop.Stacks, ns, "cdn", types.MergePatchType, map[string]any{"spec": map[string]any{"commit": sha(11)}})
	eventually(t, 5*time.Second, "approved commit applied", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "cdn")
		return r.Str("status", "lastUpdate", "lastSuccessfulCommit") == sha(11) && r.Int("status", "lastUpdate", "generation") == 2, stackState(r)
	})
}

func abbreviatedCommitStallsWithSourceUnavailable(t *testing.T, dyn dynamic.Interface, ns string) {
	create(t, dyn, pulumiop.Stacks, stackObj(ns, "short", map[string]any{"commit": "abc1234"}))
	startPulumi(t, dyn, ns, sim.PulumiOptions{})
	eventually(t, 5*time.Second, "stalled", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "short")
		st := condition(r, "Stalled")
		return st.Str("reason") == "SourceUnavailable" && st.Str("message") == `no commits found for ref "abc1234"`, stackState(r)
	})
}

func branchStackFollowsPushes(t *testing.T, dyn dynamic.Interface, ns string) {
	git := sim.NewGit()
	git.Set(stackRepo, "main", sha(20))
	create(t, dyn, pulumiop.Stacks, stackObj(ns, "platform", map[string]any{"branch": "refs/heads/main"}))
	startPulumi(t, dyn, ns, sim.PulumiOptions{Git: git})
	eventually(t, 5*time.Second, "head applied", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "platform")
		return r.Str("status", "lastUpdate", "lastSuccessfulCommit") == sha(20), stackState(r)
	})
	head := git.Push(stackRepo, "main")
	eventually(t, 5*time.Second, "pushed commit applied", func() (bool, string) {
		r := get(t, dyn, pulumiop.Stacks, ns, "platform")
		return r.Str("status", "lastUpdate", "lastSuccessfulCommit") == head, stackState(r)
	})
	ups := updatesOf(t, dyn, ns, "platform")
	found := false
	for _, u := range ups {
		found = found || objread.New(u.Object).Str("spec", "message") == fmt.Sprintf("New commit detected: %q", head)
	}
	if !found {
		t.Errorf("no update for the new commit among %d", len(ups))
	}
}

// pulumiScenarios run on the fake API here and on a real kube-apiserver in the
// TestCluster tests.
var pulumiScenarios = map[string]func(t *testing.T, dyn dynamic.Interface, ns string){
	"NewStackRunsAnUpdateAndBecomesReady":            newStackRunsAnUpdateAndBecomesReady,
	"ReconcileRequestRunsAgainAndIsRecorded":         reconcileRequestRunsAgainAndIsRecorded,
	"PreviewStackRunsPreviews":                       previewStackRunsPreviews,
	"FailuresCountThenStall":                         failuresCountThenStall,
	"CurrentUpdateNamingMissingUpdateWedgesTheStack": currentUpdateNamingMissingUpdateWedgesTheStack,
	"ApprovedCommitIsApplied":                        approvedCommitIsApplied,
	"AbbreviatedCommitStallsWithSourceUnavailable":   abbreviatedCommitStallsWithSourceUnavailable,
	"BranchStackFollowsPushes":                       branchStackFollowsPushes,
}

func TestPulumiOperatorOnFakeAPI(t *testing.T) {
	for name, scenario := range pulumiScenarios {
		t.Run(name, func(t *testing.T) { scenario(t, fakeAPI(), "infra") })
	}
}
