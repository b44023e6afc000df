package actions

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/sim"
)

func newestCase(engine model.Engine) fluxCase { return fluxCase{engine, engines.Versions(engine)[0]} }

var (
	ks = newestCase(model.EngineKustomization)
	hr = newestCase(model.EngineHelmRelease)
	tf = newestCase(model.EngineTerraform)
)

func TestClusterFreezeAndThawSpanAllFiveEngines(t *testing.T) {
	e := ownEnv(t)
	e.sub("freeze", func(t *testing.T, e *env) {
		e.app("web", `"automated":{"prune":true,"selfHeal":true}`, drifted)
		e.stack("net", "", `,"commit":"`+pinned+`"`)
		for _, c := range []fluxCase{ks, hr, tf} {
			e.fluxObj(c, "web", "", "", "")
			e.fluxObj(c, "held", `"suspend":true`, "", "")
		}
		keys := []model.Key{e.key(model.EngineArgoCD, "web"), e.key(model.EnginePulumi, "net")}
		for _, c := range []fluxCase{ks, hr, tf} {
			keys = append(keys, e.key(c.engine, "web"), e.key(c.engine, "held"))
		}
		ctx := context.Background()
		for _, kind := range []Kind{Pause, Resume} {
			out := e.exec.Bulk(ctx, BulkRequest{Kind: kind, Keys: keys, Reason: "INC-12"})
			for _, o := range out {
				want := OutcomeApplied
				if o.Key.Name == "held" {
					want = OutcomeSkipped
				}
				if o.Outcome != want {
					t.Errorf("%s %s: %s (%s), want %s", kind, o.Key.Ref(), o.Outcome, o.Why, want)
				}
			}
		}
		if a := argocd.Convert("test", e.get(argocd.Applications, "web").Object).Argo; !a.AutoSync || !a.SelfHeal {
			t.Error("the app's automation is not back after the thaw")
		}
		if pulumiop.Convert("test", e.get(pulumiop.Stacks, "net").Object).Stack.Preview {
			t.Error("the Stack still previews only after the thaw")
		}
		for _, c := range []fluxCase{ks, hr, tf} {
			if v, _ := lookup(e.read(c, "held").Object, "spec", "suspend"); v != true {
				t.Errorf("%s held: suspended before the freeze, %v after the thaw", c.engine, v)
			}
			if _, present := lookup(e.read(c, "web").Object, "spec", "suspend"); present {
				t.Errorf("%s web: spec.suspend left after the thaw", c.engine)
			}
		}
	})
}

func TestClusterRefreshWithSourceRequestsTheSourceFirst(t *testing.T) {
	e := ownEnvAlone(t)
	e.c.InstallCRDs(t, sourceStandIns(t))
	git := mustSource(t, e, "GitRepository")
	helmRepo := mustSource(t, e, "HelmRepository")
	chart := mustSource(t, e, "HelmChart")
	e.sub("kustomization", func(t *testing.T, e *env) {
		e.create(git, `{"apiVersion":"source.toolkit.fluxcd.io/v1","kind":"GitRepository","metadata":{"name":"infra"},"spec":{"url":"https://git.example.com/infra.git"}}`)
		e.fluxObj(ks, "web", "", "", "")
		res := e.mustRun(Request{Kind: Refresh, Key: e.key(ks.engine, "web"), WithSource: true})
		if got := e.get(git, "infra").GetAnnotations()[flux.AnnotationRequestedAt]; got != res.Token {
			t.Errorf("GitRepository requestedAt %q, want the unit's token %q", got, res.Token)
		}
		if !strings.HasPrefix(res.Plan.Changes[0], "GitRepository/"+e.ns+"/infra: ") {
			t.Errorf("the plan must list the source first: %v", res.Plan.Changes)
		}
		if own := res.Plan.Changes[len(res.Plan.Changes)-1]; !strings.HasPrefix(own, "kustomization/"+e.ns+"/web: ") {
			t.Errorf("the unit's own line must name it, not read as the source's: %q", own)
		}
	})
	e.sub("helmrelease chart template", func(t *testing.T, e *env) {
		e.create(helmRepo, `{"apiVersion":"source.toolkit.fluxcd.io/v1","kind":"HelmRepository","metadata":{"name":"charts"},"spec":{"url":"https://charts.example.com"}}`)
		e.create(chart, `{"apiVersion":"source.toolkit.fluxcd.io/v1","kind":"HelmChart","metadata":{"name":"%s-web"},"spec":{"chart":"podinfo","sourceRef":{"kind":"HelmRepository","name":"charts"}}}`, e.ns)
		e.fluxObj(hr, "web", "", "", "")
		res := e.mustRun(Request{Kind: Refresh, Key: e.key(hr.engine, "web"), WithSource: true})
		if got := e.get(helmRepo, "charts").GetAnnotations()[flux.AnnotationRequestedAt]; got != res.Token {
			t.Errorf("HelmRepository requestedAt %q, want %q", got, res.Token)
		}
		if got := e.get(chart, e.ns+"-web").GetAnnotations()[flux.AnnotationRequestedAt]; got != res.Token {
			t.Errorf("the HelmChart helm-controller made: requestedAt %q, want %q", got, res.Token)
		}
	})
	e.sub("a shown plan whose unit's status moved requests the source once", func(t *testing.T, e *env) {
		e.create(git, `{"apiVersion":"source.toolkit.fluxcd.io/v1","kind":"GitRepository","metadata":{"name":"infra"},"spec":{"url":"https://git.example.com/infra.git"}}`)
		e.fluxObj(ks, "web", "", "", `"lastHandledReconcileAt":"2026-11-01T00:00:00Z"`)
		shown := e.planned(Request{Kind: Refresh, Key: e.key(ks.engine, "web"), Reason: "fix pushed", WithSource: true})
		// kustomize-controller writes its status while the user reads.
		if _, err := e.dyn.Resource(ks.gvr).Namespace(e.ns).Patch(context.Background(), "web", types.MergePatchType,
			[]byte(`{"status":{"lastHandledReconcileAt":"2026-11-02T00:00:00Z"}}`), metav1.PatchOptions{}, "status"); err != nil {
			t.Fatal(err)
		}
		// Sent again on the moved unit, the source's request would find the
		// token it wrote and fail: the source is requested once.
		res := e.mustSend(shown)
		if got := e.read(ks, "web").GetAnnotations()[flux.AnnotationRequestedAt]; got != res.Token {
			t.Errorf("the unit's requestedAt %q, want %q", got, res.Token)
		}
		if got := e.get(git, "infra").GetAnnotations()[flux.AnnotationRequestedAt]; got != res.Token {
			t.Errorf("GitRepository requestedAt %q, want %q", got, res.Token)
		}
	})
	e.sub("a missing source writes nothing", func(t *testing.T, e *env) {
		e.fluxObj(ks, "web", "", "", "")
		_, err := e.run(Request{Kind: Refresh, Key: e.key(ks.engine, "web"), WithSource: true})
		var r *Refusal
		if !errors.As(err, &r) || !r.NotFound {
			t.Fatalf("want a not-found refusal, got %v", err)
		}
		if _, ok := e.read(ks, "web").GetAnnotations()[flux.AnnotationRequestedAt]; ok {
			t.Error("the unit was requested although its source is missing")
		}
	})
}

// mustSource is the resource of a source kind, found as Execute finds it.
func mustSource(t *testing.T, e *env, kind string) schema.GroupVersionResource {
	c, _ := e.exec.Cluster("test")
	env := &planEnv{ctx: context.Background(), cluster: c}
	gvr, err := env.sourceResource(kind)
	if err != nil {
		t.Fatal(err)
	}
	return gvr
}

func TestClusterTerraformWritesAreGuardedLikeEveryWrite(t *testing.T) {
	e := ownEnv(t)
	e.sub("dry-run and read-only write nothing", func(t *testing.T, e *env) {
		e.fluxObj(tf, "infra", "", "", pendingStatus)
		key := e.key(tf.engine, "infra")
		ctx := context.Background()
		dry := &Executor{Cluster: e.exec.Cluster, DryRun: true}
		res, err := dry.Execute(ctx, Request{Kind: Approve, Key: key, Reason: "reviewed", Revision: planID})
		if err != nil || !res.DryRun || !contains(res.Plan.Changes, planID) {
			t.Fatalf("dry-run approve: %+v %v", res, err)
		}
		ro := &Executor{Cluster: e.exec.Cluster, ReadOnly: true}
		if _, err := ro.Execute(ctx, Request{Kind: ForceUnlock, Key: key, Reason: "x"}); !errors.Is(err, ErrReadOnly) {
			t.Errorf("read-only: %v", err)
		}
		if _, err := e.run(Request{Kind: Approve, Key: key, Revision: planID}); err == nil || !strings.Contains(err.Error(), "reason is required") {
			t.Errorf("an approval without a reason: %v", err)
		}
		if got := lookupString(e.read(tf, "infra").Object, "spec", "approvePlan"); got != "" {
			t.Errorf("written: spec.approvePlan %q", got)
		}
	})
}

func TestClusterSimulatedControllersHandleTheRequests(t *testing.T) {
	e := ownEnv(t)
	e.sub("handled", func(t *testing.T, e *env) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			_ = sim.NewFlux(e.dyn, sim.FluxOptions{Namespace: e.ns, OnError: func(err error) { t.Log(err) }}).Run(ctx)
		}()
		e.fluxObj(ks, "web", "", "", "")
		e.fluxObj(tf, "infra", "", "", pendingStatus)
		res := e.mustRun(Request{Kind: Refresh, Key: e.key(ks.engine, "web")})
		waitFor(t, "the Kustomization's request handled", func() bool {
			return lookupString(e.read(ks, "web").Object, "status", "lastHandledReconcileAt") == res.Token
		})
		e.mustRun(Request{Kind: Approve, Key: e.key(tf.engine, "infra"), Reason: "reviewed", Revision: planID})
		waitFor(t, "the approved plan applied", func() bool {
			return lookupString(e.read(tf, "infra").Object, "status", "plan", "lastApplied") == planID
		})
	})
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
