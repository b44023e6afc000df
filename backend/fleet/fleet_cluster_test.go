package fleet

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

var (
	applicationGVK = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Application"}
	stackGVK       = schema.GroupVersionKind{Group: "pulumi.com", Version: "v1", Kind: "Stack"}
)

// generations pairs each upstream Argo CD CRD set with a Pulumi operator set
// (they install side by side); without ../shared/crds only our own CRDs run.
func generations(t *testing.T) [][]testcluster.CRDSet {
	argo := testcluster.UpstreamCRDSetsServing(t, applicationGVK)
	pulumi := testcluster.UpstreamCRDSetsServing(t, stackGVK)
	var out [][]testcluster.CRDSet
	for i := 0; i < max(len(argo), len(pulumi)); i++ {
		var g []testcluster.CRDSet
		if i < len(argo) {
			g = append(g, argo[i])
		}
		if i < len(pulumi) {
			g = append(g, pulumi[i])
		}
		out = append(out, g)
	}
	own, err := testcluster.OwnCRDs()
	if err != nil {
		t.Fatal(err)
	}
	return append(out, []testcluster.CRDSet{own})
}

func setNames(sets []testcluster.CRDSet) string {
	var s []string
	for _, x := range sets {
		s = append(s, x.Name)
	}
	return strings.Join(s, "+")
}

func TestClusterModelClassifiesEveryState(t *testing.T) {
	for _, gen := range generations(t) {
		t.Run(setNames(gen), func(t *testing.T) {
			c := testcluster.SharedServing(t, gen)
			dyn := dynamic.NewForConfigOrDie(c.Config())
			ns := c.Namespace(t)
			seedArgo(t, dyn, ns)
			seedStacks(t, dyn, ns)

			f := startFleet(t, c, ns)
			units := map[string]*model.Unit{}
			for _, u := range f.Store.Snapshot() {
				units[u.Key.Ref()] = u
			}
			expect := []struct {
				unit   string
				run    model.RunState
				reason string
			}{
				{"argocd/" + ns + "/healthy", model.Idle, ""},
				{"argocd/" + ns + "/manual-drifted", model.AwaitingApproval, "manual sync"},
				{"argocd/" + ns + "/syncing", model.Running, "sync running"},
				{"argocd/" + ns + "/hung", model.Stuck, "sync running"},
				{"argocd/" + ns + "/queued", model.Running, "not started"},
				{"argocd/" + ns + "/zombie", model.Stuck, "no operation"},
				{"argocd/" + ns + "/failed", model.Failed, "failed to apply"},
				{"argocd/" + ns + "/windowed", model.BlockedByWindow, "deny window"},
				{"argocd/" + ns + "/held-by-window", model.BlockedByWindow, "blocked by sync window"},
				{"argocd/" + ns + "/prune-wait", model.AwaitingApproval, "pruning confirmation"},
				{"argocd/" + ns + "/broken-source", model.Failed, "ComparisonError"},
				{"pulumi/" + ns + "/ready", model.Idle, ""},
				{"pulumi/" + ns + "/stalled", model.Stuck, "UpdateFailed"},
				{"pulumi/" + ns + "/proposed", model.AwaitingApproval, "proposed"},
			}
			for _, e := range expect {
				u, ok := units[e.unit]
				if !ok {
					t.Errorf("%s missing from the model", e.unit)
					continue
				}
				if u.Run != e.run || !strings.Contains(u.RunReason, e.reason) {
					t.Errorf("%s: run %v %q, want %v containing %q (rule %q)", e.unit, u.Run, u.RunReason, e.run, e.reason, u.StuckRule)
				}
				if e.run == model.Stuck && u.StuckRule == "" {
					t.Errorf("%s is stuck without the rule that says why", e.unit)
				}
			}
			// Operator v2 keeps the lock error in lastUpdate.message: a lock
			// conflict is stuck. Operator v1's CRD prunes it: only "failed".
			if u := units["pulumi/"+ns+"/locked"]; u == nil {
				t.Error("the locked Stack is missing")
			} else if u.Stack.LastMessage != "" && (u.Run != model.Stuck || !strings.Contains(u.RunReason, "state lock")) {
				t.Errorf("a Stack failing on a lock: %v %q", u.Run, u.RunReason)
			} else if u.Stack.LastMessage == "" && u.Run != model.Failed {
				t.Errorf("a failing Stack without the message: %v %q", u.Run, u.RunReason)
			}
			if u := units["argocd/"+ns+"/owned"]; u == nil || u.Owner != "ApplicationSet/team-apps" {
				t.Errorf("ApplicationSet owner not recognised: %+v", u)
			}
			if u := units["argocd/"+ns+"/child"]; u == nil || u.Owner != "Application/root" {
				t.Errorf("app-of-apps parent not recognised: %+v", u)
			}
		})
	}
}

func TestClusterStatusChangesReachTheModelWithinASecond(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	create(t, dyn, argocd.Applications, app(t, ns, "web", `"automated":{}`, `"sync":{"status":"Synced"},"health":{"status":"Healthy"}`), false)
	create(t, dyn, pulumiop.Stacks, stack(t, ns, "net", "", readyStatus), true)
	f := startFleet(t, c, ns)

	waitFor := func(what string, ok func() bool) time.Duration {
		start := time.Now()
		for time.Since(start) < 5*time.Second {
			if ok() {
				return time.Since(start)
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("%s did not reach the model within 5s", what)
		return 0
	}
	appKey := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: ns, Name: "web"}
	patchStatus(t, dyn, argocd.Applications, ns, "web", `{"sync":{"status":"OutOfSync"}}`, false)
	d := waitFor("an Application going OutOfSync", func() bool {
		u, ok := f.Store.Get(appKey)
		return ok && u.Sync == model.Drifted
	})
	if d > time.Second {
		t.Errorf("an Application's status change took %v to reach the model", d)
	}
	stackKey := model.Key{Context: "test", Engine: model.EnginePulumi, Namespace: ns, Name: "net"}
	patchStatus(t, dyn, pulumiop.Stacks, ns, "net", `{"conditions":[{"type":"Ready","status":"False","reason":"NotReadyStalled","lastTransitionTime":"`+ago(0)+`","message":""},{"type":"Stalled","status":"True","reason":"SourceUnavailable","message":"no commits found","lastTransitionTime":"`+ago(0)+`"}]}`, true)
	d = waitFor("a Stack stalling", func() bool {
		u, ok := f.Store.Get(stackKey)
		return ok && u.Run == model.Stuck
	})
	if d > time.Second {
		t.Errorf("a Stack's status change took %v to reach the model", d)
	}
}

// startFleet watches one namespace of the test cluster and waits for the
// first lists, and for the model to hold what the namespace holds.
func startFleet(t *testing.T, c *testcluster.Cluster, ns string) *Fleet {
	t.Helper()
	f := startSession(t, "test", c.Config(), ns).f
	waitCaughtUp(t, c, f, ns)
	f.Store.Tick()
	return f
}
