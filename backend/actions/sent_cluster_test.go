package actions

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/patchrec"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// recordedEnv is the package's shared control plane (our CRDs) through a
// client that records every PATCH it sends.
func recordedEnv(t *testing.T) (*env, *patchrec.Recorder) {
	c := testcluster.Shared(t)
	cfg := rest.CopyConfig(c.Config())
	rec := patchrec.On(cfg)
	return newEnv(t, c, cfg), rec
}

// countPlanners wraps every planner of the action table in a counter, for
// the test's duration.
func countPlanners(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	saved := specs
	counted := make([]Spec, len(specs))
	for i, s := range specs {
		s.plans = make(map[model.Engine]planner, len(saved[i].plans))
		for engine, pl := range saved[i].plans {
			s.plans[engine] = func(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
				n.Add(1)
				return pl(env, obj, req)
			}
		}
		counted[i] = s
	}
	specs = counted
	t.Cleanup(func() { specs = saved })
	return &n
}

// sentCase is an action on a unit set up so that the action is possible.
type sentCase struct {
	name  string
	setup func(e *env) Request
}

// The plan a user confirms is the request that reaches the API server, byte
// for byte, for every action kind that patches a unit, and the planner runs
// once per plan shown: not again when it is sent. The bytes are recorded on
// the client's transport, as they leave for a real kube-apiserver. Unlock is
// not here: it writes a Stack's state backend, not the Stack (stackops saves
// and applies its own plan).
func TestClusterThePlanShownIsTheBytesSentForEveryKind(t *testing.T) {
	base, rec := recordedEnv(t)
	planned := countPlanners(t)

	flux := func(engine model.Engine) fluxCase { return fluxCase{engine, engines.Versions(engine)[0]} }
	kustomization, helmRelease, terraform := flux(model.EngineKustomization), flux(model.EngineHelmRelease), flux(model.EngineTerraform)
	argo := func(kind Kind, policy, status string, top ...string) func(e *env) Request {
		return func(e *env) Request {
			e.app("web", policy, status, top...)
			return Request{Kind: kind, Key: e.key(model.EngineArgoCD, "web"), Reason: "INC-11"}
		}
	}
	onFlux := func(kind Kind, c fluxCase, spec, status string) func(e *env) Request {
		return func(e *env) Request {
			e.fluxObj(c, "unit", spec, "", status)
			return Request{Kind: kind, Key: e.key(c.engine, "unit"), Reason: "INC-11"}
		}
	}
	onStack := func(kind Kind, annotations string) func(e *env) Request {
		return func(e *env) Request {
			e.stack("net", annotations, `,"commit":"`+pinned+`"`)
			return Request{Kind: kind, Key: e.key(model.EnginePulumi, "net"), Reason: "INC-11"}
		}
	}
	paused := func(setup func(e *env) Request) func(e *env) Request {
		return func(e *env) Request {
			req := setup(e)
			e.mustRun(Request{Kind: Pause, Key: req.Key, Reason: "INC-10"})
			return req
		}
	}
	running := drifted + `,"operationState":{"phase":"Running","startedAt":"2026-11-29T09:00:00Z","operation":{"sync":{}}}`
	history := drifted + `,"history":[{"id":3,"revision":"3333333333333333333333333333333333333333","deployedAt":"2026-11-20T10:00:00Z","source":{"repoURL":"https://git.example.com/apps.git","path":"web","targetRevision":"main"}}]`
	pruneWaits := drifted + `,"operationState":{"phase":"Running","message":"waiting for pruning confirmation of apps/Deployment/old","startedAt":"` +
		time.Now().Add(-time.Minute).UTC().Format(time.RFC3339) + `","operation":{"sync":{}}}`
	cases := []sentCase{
		{"argocd sync", argo(Sync, `"automated":{"prune":true}`, drifted)},
		{"argocd approve", func(e *env) Request {
			req := argo(Approve, ``, drifted)(e)
			req.Revision = rev
			return req
		}},
		{"argocd refresh", argo(Refresh, `"automated":{}`, drifted)},
		{"argocd hard-refresh", argo(HardRefresh, `"automated":{}`, drifted)},
		{"argocd terminate", argo(Terminate, `"automated":{}`, running, `"operation":{"sync":{}}`)},
		{"argocd pause", argo(Pause, `"automated":{"prune":true,"selfHeal":true}`, drifted)},
		{"argocd pause-self-heal", argo(PauseSelfHeal, `"automated":{"selfHeal":true}`, drifted)},
		{"argocd resume", paused(argo(Resume, `"automated":{"prune":true}`, drifted))},
		{"argocd rollback", func(e *env) Request {
			req := argo(Rollback, ``, history)(e)
			req.HistoryID = 3
			return req
		}},
		{"argocd confirm-prune", argo(ConfirmPrune, `"automated":{}`, pruneWaits, `"operation":{"sync":{}}`)},
		{"stack retry", onStack(Retry, "")},
		{"stack approve", onStack(Approve, `"driftdeck.io/proposed-commit":"`+proposed+`"`)},
		{"stack pause", onStack(Pause, "")},
		{"stack resume", paused(onStack(Resume, ""))},
		{"kustomization refresh", onFlux(Refresh, kustomization, "", "")},
		{"kustomization pause", onFlux(Pause, kustomization, "", "")},
		{"kustomization resume", paused(onFlux(Resume, kustomization, "", ""))},
		{"helmrelease force", onFlux(Force, helmRelease, "", `"failures":3,"upgradeFailures":3,"lastAttemptedReleaseAction":"upgrade"`)},
		{"helmrelease reset", onFlux(Reset, helmRelease, "", `"failures":3,"upgradeFailures":3,"lastAttemptedReleaseAction":"upgrade"`)},
		{"terraform approve", func(e *env) Request {
			req := onFlux(Approve, terraform, "", pendingStatus)(e)
			req.Revision = planID
			return req
		}},
		{"terraform replan", onFlux(Replan, terraform, "", pendingStatus)},
		{"terraform force-unlock", func(e *env) Request {
			req := onFlux(ForceUnlock, terraform, "", `"lock":{"pending":"`+lockID+`"}`)(e)
			req.LockID = lockID
			return req
		}},
		{"terraform pause", onFlux(Pause, terraform, "", "")},
	}
	tested := map[Kind]bool{}
	for _, tc := range cases {
		base.sub(tc.name, func(t *testing.T, e *env) {
			req := tc.setup(e)
			rec.Take()
			before := planned.Load()
			p := e.planned(req)
			if n := planned.Load() - before; n != 1 {
				t.Errorf("showing one plan ran the planner %d times", n)
			}
			shown, err := patch(p.Patch).bytes()
			if err != nil {
				t.Fatal(err)
			}
			res := e.mustSend(p)
			if n := planned.Load() - before; n != 1 {
				t.Errorf("sending the plan shown ran the planner again: %d runs in all", n)
			}
			if res.Plan != p {
				t.Errorf("the result is not of the plan sent")
			}
			var unit []patchrec.Sent
			for _, s := range rec.Take() {
				if strings.HasSuffix(s.Path, "/namespaces/"+e.ns+"/"+p.gvr.Resource+"/"+req.Key.Name) {
					unit = append(unit, s)
				}
			}
			if len(unit) != 1 {
				t.Fatalf("%d patches reached the unit, want the one shown: %q", len(unit), unit)
			}
			if !bytes.Equal(unit[0].Body, shown) {
				t.Errorf("the bytes sent are not the plan shown:\nsent  %s\nshown %s", unit[0].Body, shown)
			}
			if !strings.HasPrefix(string(shown), `[{"op":"test","path":"/metadata/resourceVersion","value":"`+p.ResourceVersion+`"}`) {
				t.Errorf("the plan shown is not bound to the version it was made from (%s): %s", p.ResourceVersion, shown)
			}
			tested[req.Kind] = true
		})
	}
	for _, s := range Specs() {
		if !tested[s.Kind] && s.Kind != Unlock {
			t.Errorf("%s is not tested here", s.Kind)
		}
	}
}

// A bulk action confirmed on the plans it showed writes each of them as
// shown; a unit that changed since is not written, and says so.
func TestClusterABulkSendsThePlansItShowed(t *testing.T) {
	e, rec := recordedEnv(t)
	e.ns = e.c.Namespace(t)
	var keys []model.Key
	for _, name := range []string{"shown", "moved", "unshown"} {
		e.app(name, `"automated":{"prune":true,"selfHeal":true}`, drifted)
		keys = append(keys, e.key(model.EngineArgoCD, name))
	}
	shown := map[model.Key]*Plan{}
	for _, k := range keys[:2] {
		shown[k] = e.planned(Request{Kind: Pause, Key: k, Reason: "INC-12"})
	}
	e.mergePatch(argocd.Applications, "moved", `{"spec":{"syncPolicy":{"automated":{"selfHeal":false}}}}`)
	movedBefore := e.get(argocd.Applications, "moved")
	rec.Take()
	out := e.exec.Bulk(context.Background(), BulkRequest{Kind: Pause, Keys: keys, Reason: "INC-12", Shown: shown})
	byName := map[string]BulkOutcome{}
	for _, o := range out {
		byName[o.Key.Name] = o
	}
	if o := byName["shown"]; o.Outcome != OutcomeApplied {
		t.Errorf("shown: %s %s", o.Outcome, o.Why)
	}
	if o := byName["unshown"]; o.Outcome != OutcomeApplied {
		t.Errorf("unshown: %s %s", o.Outcome, o.Why)
	}
	if o := byName["moved"]; o.Outcome != OutcomeFailed || !strings.Contains(o.Why, "changed since the plan was confirmed") || !strings.Contains(o.Why, `"selfHeal":false`) {
		t.Errorf("moved: %s %q, want failed, saying what changed", o.Outcome, o.Why)
	}
	if after := e.get(argocd.Applications, "moved"); after.GetResourceVersion() != movedBefore.GetResourceVersion() {
		t.Errorf("a unit that changed since its plan was shown was written")
	}
	want, _ := patch(shown[keys[0]].Patch).bytes()
	var sent [][]byte
	for _, s := range rec.Take() {
		if strings.HasSuffix(s.Path, "/applications/shown") {
			sent = append(sent, s.Body)
		}
	}
	if len(sent) != 1 || !bytes.Equal(sent[0], want) {
		t.Errorf("the shown unit's write is not its plan:\nsent  %q\nshown %s", sent, want)
	}
}
