package actions

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/sim"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// dropPatches has the proxy apply fault to the next patch of an object of
// the resource, and answer every request after it with then (nil: pass).
// It counts that patch and the requests after it.
func dropPatches(p *testcluster.Proxy, resource string, fault testcluster.Fault, then func(*http.Request) testcluster.Fault) *atomic.Int32 {
	var seen atomic.Int32
	p.SetFault(func(r *http.Request) testcluster.Fault {
		if seen.Load() > 0 {
			seen.Add(1)
			if then == nil {
				return testcluster.Pass
			}
			return then(r)
		}
		if r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/"+resource+"/") && seen.CompareAndSwap(0, 1) {
			return fault
		}
		return testcluster.Pass
	})
	return &seen
}

// beforeReadBack has the proxy drop the answer to the next patch of an
// object of the resource and, at the first read of the unit after it, run
// fn first: what another writer or a controller does between the write
// landing and its read back. It reports whether fn ran.
func beforeReadBack(p *testcluster.Proxy, resource string, fn func()) *atomic.Bool {
	var ran atomic.Bool
	dropPatches(p, resource, testcluster.DropAfterForward, func(r *http.Request) testcluster.Fault {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/"+resource+"/web") && ran.CompareAndSwap(false, true) {
			fn()
		}
		return testcluster.Pass
	})
	return &ran
}

// operationReason is the Reason an Argo CD operation at path carries.
func operationReason(obj map[string]any, path ...string) string {
	info, _ := lookup(obj, append(path, "info")...)
	for _, i := range asSlice(info) {
		if m, _ := i.(map[string]any); m["name"] == "Reason" {
			s, _ := m["value"].(string)
			return s
		}
	}
	return ""
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// dropAll drops every request.
func dropAll(*http.Request) testcluster.Fault { return testcluster.DropBeforeForward }

// lostWrite is one write of an engine whose answer the tests lose: how to
// make the unit it writes to, the request, and whether the object holds
// the write (read straight from the cluster, not through driftdeck).
type lostWrite struct {
	name    string
	gvr     schema.GroupVersionResource
	engine  model.Engine
	seed    func(e *env)
	request Request
	holds   func(e *env) bool
	// answer, when set, is the JSON patch with which the engine's
	// controller consumes the write (given the object it landed on),
	// removing what the patch wrote: played before the read back.
	answer func(obj map[string]any) []map[string]any
}

func (w lostWrite) req(e *env) Request {
	r := w.request
	r.Key = e.key(w.engine, "web")
	return r
}

var lostWrites = []lostWrite{
	{
		name: "Argo CD pause", gvr: argocd.Applications, engine: model.EngineArgoCD,
		seed:    func(e *env) { e.app("web", `"automated":{"prune":true}`, `"sync":{"status":"Synced"}`) },
		request: Request{Kind: Pause, Reason: "INC-7"},
		holds: func(e *env) bool {
			return argocd.Convert("test", e.get(argocd.Applications, "web").Object).Automation == model.Paused
		},
	},
	{
		name: "Argo CD sync", gvr: argocd.Applications, engine: model.EngineArgoCD,
		seed:    func(e *env) { e.app("web", "", `"sync":{"status":"OutOfSync"}`) },
		request: Request{Kind: Sync, Reason: "INC-7"},
		holds: func(e *env) bool {
			return operationReason(e.get(argocd.Applications, "web").Object, "operation") == "INC-7"
		},
		answer: func(obj map[string]any) []map[string]any {
			op, _ := obj["operation"].(map[string]any)
			return sim.ArgoOperationFinished(op, time.Now())
		},
	},
	{
		name: "Argo CD refresh", gvr: argocd.Applications, engine: model.EngineArgoCD,
		seed:    func(e *env) { e.app("web", "", `"reconciledAt":"2026-01-01T00:00:00Z"`) },
		request: Request{Kind: Refresh, Reason: "INC-7"},
		holds: func(e *env) bool {
			return annotationsOf(e.get(argocd.Applications, "web").Object)[argocd.AnnotationRefresh] == "normal"
		},
		answer: func(map[string]any) []map[string]any { return sim.ArgoRefreshHandled("normal", time.Now()) },
	},
	{
		name: "Argo CD terminate", gvr: argocd.Applications, engine: model.EngineArgoCD,
		seed: func(e *env) {
			op := `{"initiatedBy":{"username":"bob"},"sync":{"revision":"main"}}`
			e.app("web", "", `"operationState":{"phase":"Running","message":"one or more tasks are running","startedAt":"2026-12-01T09:00:00Z","operation":`+op+`}`, `"operation":`+op)
		},
		request: Request{Kind: Terminate, Reason: "INC-7"},
		holds: func(e *env) bool {
			return lookupString(e.get(argocd.Applications, "web").Object, "status", "operationState", "phase") == "Terminating"
		},
		answer: func(map[string]any) []map[string]any { return sim.ArgoOperationTerminated(time.Now()) },
	},
	{
		name: "Flux Kustomization suspend", gvr: flux.Kustomizations[0], engine: model.EngineKustomization,
		seed: func(e *env) {
			e.fluxObj(fluxCase{model.EngineKustomization, flux.Kustomizations[0]}, "web", "", "", "")
		},
		request: Request{Kind: Pause, Reason: "INC-7"},
		holds: func(e *env) bool {
			v, _ := lookup(e.get(flux.Kustomizations[0], "web").Object, "spec", "suspend")
			return v == true
		},
	},
	{
		name: "Flux Kustomization reconcile", gvr: flux.Kustomizations[0], engine: model.EngineKustomization,
		seed: func(e *env) {
			e.fluxObj(fluxCase{model.EngineKustomization, flux.Kustomizations[0]}, "web", "", "", "")
		},
		request: Request{Kind: Refresh, Reason: "INC-7"},
		holds: func(e *env) bool {
			return annotationsOf(e.get(flux.Kustomizations[0], "web").Object)[flux.AnnotationRequestedAt] != ""
		},
	},
	{
		name: "Stack retry", gvr: pulumiop.Stacks, engine: model.EnginePulumi,
		seed:    func(e *env) { e.stack("web", "", `,"commit":"`+pinned+`"`) },
		request: Request{Kind: Retry, Reason: "INC-7"},
		holds: func(e *env) bool {
			return annotationsOf(e.get(pulumiop.Stacks, "web").Object)[pulumiop.AnnotationReconcileRequest] != ""
		},
	},
	{
		name: "Stack pause", gvr: pulumiop.Stacks, engine: model.EnginePulumi,
		seed:    func(e *env) { e.stack("web", "", `,"commit":"`+pinned+`"`) },
		request: Request{Kind: Pause, Reason: "INC-7"},
		holds: func(e *env) bool {
			v, _ := lookup(e.get(pulumiop.Stacks, "web").Object, "spec", "preview")
			return v == true
		},
	},
	{
		name: "Terraform approve", gvr: tofu.Terraforms[0], engine: model.EngineTerraform,
		seed: func(e *env) {
			e.fluxObj(fluxCase{model.EngineTerraform, tofu.Terraforms[0]}, "web", "", "", pendingStatus)
		},
		request: Request{Kind: Approve, Reason: "plan reviewed", Revision: planID},
		holds: func(e *env) bool {
			return lookupString(e.get(tofu.Terraforms[0], "web").Object, "spec", "approvePlan") == planID
		},
	},
}

func TestClusterAWriteWhoseAnswerIsLostIsReadBackNotGuessed(t *testing.T) {
	c := testcluster.Shared(t)
	for _, w := range lostWrites {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel() // each has its own proxy; the unknown outcomes wait out the read back
			p := c.Proxy(t)
			readBackLostWrite(newEnv(t, c, p.Config()), p, w)
		})
	}
}

// readBackLostWrite loses the answer to w in every way the proxy can, and
// checks what driftdeck reports and audits against what the cluster holds.
func readBackLostWrite(base *env, p *testcluster.Proxy, w lostWrite) {
	resource := w.gvr.Resource
	lastAudit := func(e *env) string {
		lines := e.auditLines()
		if len(lines) == 0 {
			return ""
		}
		return lines[len(lines)-1].Outcome
	}

	base.sub("applied", func(t *testing.T, e *env) {
		w.seed(e)
		dropped := dropPatches(p, resource, testcluster.DropAfterForward, nil)
		res, err := e.run(w.req(e))
		p.SetFault(nil)
		if dropped.Load() < 1 {
			t.Fatal("the patch's answer was not dropped: the fault did not happen")
		}
		if err != nil {
			t.Fatalf("the write reached the cluster, yet it reports %v", err)
		}
		if !w.holds(e) || !res.Verified {
			t.Fatalf("reported applied: the object must hold the write and the write be verified (verified %v)", res.Verified)
		}
		if !contains(res.Warnings, "it was applied") {
			t.Errorf("the result must say the answer was lost and read back: %v", res.Warnings)
		}
		if got := lastAudit(e); got != writeguard.OutcomeDone {
			t.Errorf("audit outcome %q, want done", got)
		}
	})

	base.sub("applied, then annotated by another writer before the read back", func(t *testing.T, e *env) {
		w.seed(e)
		other := dynamic.NewForConfigOrDie(e.c.Config()) // straight to the apiserver
		annotated := beforeReadBack(p, resource, func() {
			_, err := other.Resource(w.gvr).Namespace(e.ns).Patch(context.Background(), "web", types.MergePatchType,
				[]byte(`{"metadata":{"annotations":{"example.com/noted-by":"another writer"}}}`), metav1.PatchOptions{})
			if err != nil {
				t.Errorf("the other writer: %v", err)
			}
		})
		res, err := e.run(w.req(e))
		p.SetFault(nil)
		if !annotated.Load() {
			t.Fatal("the other writer never wrote: the read back did not come")
		}
		if err != nil {
			t.Fatalf("the write reached the cluster and is still there (another writer only added an annotation), yet it reports %v", err)
		}
		if !w.holds(e) || !res.Verified {
			t.Fatalf("reported applied: the object must hold the write and the write be verified (verified %v)", res.Verified)
		}
		if got := lastAudit(e); got != writeguard.OutcomeDone {
			t.Errorf("audit outcome %q, want done", got)
		}
	})

	if w.answer != nil {
		base.sub("applied, then answered by the controller before the read back", func(t *testing.T, e *env) {
			w.seed(e)
			controller := dynamic.NewForConfigOrDie(e.c.Config()).Resource(w.gvr).Namespace(e.ns)
			answered := beforeReadBack(p, resource, func() {
				obj, err := controller.Get(context.Background(), "web", metav1.GetOptions{})
				if err == nil {
					body, _ := json.Marshal(w.answer(obj.Object))
					_, err = controller.Patch(context.Background(), "web", types.JSONPatchType, body, metav1.PatchOptions{})
				}
				if err != nil {
					t.Errorf("the controller's answer: %v", err)
				}
			})
			res, err := e.run(w.req(e))
			p.SetFault(nil)
			if !answered.Load() {
				t.Fatal("the controller never answered: the read back did not come")
			}
			if w.holds(e) {
				t.Fatal("the object still holds the write as written: the controller's answer did not consume it")
			}
			if err != nil {
				t.Fatalf("the write landed and the controller acted on it, yet it reports %v", err)
			}
			if !res.Verified || !contains(res.Warnings, "it was applied") {
				t.Errorf("reported applied: want it verified and the answer said lost and read back (verified %v, %v)", res.Verified, res.Warnings)
			}
			if got := lastAudit(e); got != writeguard.OutcomeDone {
				t.Errorf("audit outcome %q, want done", got)
			}
		})
	}

	base.sub("not applied", func(t *testing.T, e *env) {
		w.seed(e)
		dropped := dropPatches(p, resource, testcluster.DropBeforeForward, nil)
		_, err := e.run(w.req(e))
		p.SetFault(nil)
		if dropped.Load() < 1 {
			t.Fatal("the patch was not dropped: the fault did not happen")
		}
		if err == nil || !strings.Contains(err.Error(), "not applied") {
			t.Fatalf("the write never reached the cluster; want an error saying it was not applied, got %v", err)
		}
		if w.holds(e) {
			t.Fatal("the object holds the write, yet the patch was dropped")
		}
		if got := lastAudit(e); got != writeguard.OutcomeFailed {
			t.Errorf("audit outcome %q, want failed", got)
		}
	})

	base.sub("unknown", func(t *testing.T, e *env) {
		w.seed(e)
		dropped := dropPatches(p, resource, testcluster.DropAfterForward, dropAll)
		_, err := e.run(w.req(e))
		p.SetFault(nil)
		if dropped.Load() < 2 {
			t.Fatalf("%d requests dropped: the read back was never tried", dropped.Load())
		}
		if !writeguard.IsUnknown(err) || !strings.Contains(err.Error(), "not known") {
			t.Fatalf("neither the answer nor a read back came: want the outcome reported unknown, got %v", err)
		}
		if got := lastAudit(e); got != writeguard.OutcomeUnknown {
			t.Errorf("audit outcome %q, want unknown", got)
		}
		if !w.holds(e) {
			t.Error("the patch was forwarded: the object should hold the write in fact")
		}
	})

	if spec, _ := SpecOf(w.request.Kind); !spec.Bulkable {
		return
	}
	base.sub("unknown in bulk", func(t *testing.T, e *env) {
		w.seed(e)
		dropPatches(p, resource, testcluster.DropAfterForward, dropAll)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		r := w.req(e)
		out := e.exec.Bulk(ctx, BulkRequest{Kind: r.Kind, Keys: []model.Key{r.Key}, Reason: r.Reason})
		p.SetFault(nil)
		if len(out) != 1 || out[0].Outcome != OutcomeUnknown || !strings.Contains(out[0].Why, "not known") {
			t.Fatalf("a bulk write of unknown outcome: %+v; want it reported unknown, neither applied nor failed", out)
		}
	})
}
