package demo_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

func startDemo(t *testing.T) (*kube.Cluster, *fleet.Fleet, time.Duration, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	began := time.Now()
	c, err := demo.Start(ctx, demo.Options{Timings: demo.Timings{DriftEvery: -1}, OnError: func(err error) { t.Logf("demo: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	started := time.Since(began)
	f := fleet.New(fleet.Options{})
	if err := f.Add(ctx, c, ""); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := f.WaitSynced(wctx); err != nil {
		t.Fatal(err)
	}
	return c, f, started, time.Since(began)
}

func unitsByRef(f *fleet.Fleet) map[string]*model.Unit {
	out := map[string]*model.Unit{}
	for _, u := range f.Store.Snapshot() {
		out[u.Key.Ref()] = u
	}
	return out
}

// TestDemoShowsEveryScenario is the check that the demo shows what it
// promises, right away, through the same watches and classification as a
// real cluster.
func TestDemoShowsEveryScenario(t *testing.T) {
	_, f, started, listed := startDemo(t)
	// Timings are measured, not asserted (BenchmarkStart): the target is
	// Start < 100ms and the full list within a second.
	t.Logf("Start took %s; the full list was in the store %s after Start began", started, listed)
	units := unitsByRef(f)
	var apps, stacks int
	for _, u := range units {
		switch u.Key.Engine {
		case model.EngineArgoCD:
			apps++
		case model.EnginePulumi:
			stacks++
		}
		if len(u.ReadErrors) > 0 {
			t.Errorf("%s: read errors %v", u.Key.Ref(), u.ReadErrors)
		}
	}
	if apps < 40 || apps > 60 || stacks != 12 {
		t.Errorf("%d applications and %d stacks, want 40-60 and 12", apps, stacks)
	}

	type want struct {
		run    model.RunState
		reason string // a part of RunReason
		rule   string // a part of StuckRule
	}
	for ref, w := range map[string]want{
		"argocd/argocd/search-indexer":      {model.Stuck, "waiting for healthy state", "longer than the 10m threshold"},
		"argocd/argocd/billing-ledger":      {model.BlockedByWindow, "blocked by sync window", "sync windows"},
		"argocd/argocd/billing-invoicer":    {model.BlockedByWindow, "deny window", "sync windows forbid"},
		"argocd/team-payments/payments-api": {model.Failed, "failed to apply", ""},
		"argocd/argocd/legacy-reports":      {model.AwaitingApproval, "pruning confirmation of apps/Deployment/legacy-reports-worker", ""},
		"argocd/argocd/catalog":             {model.Running, "sync running", ""},
		"argocd/argocd/kafka":               {model.AwaitingApproval, "manual sync", ""},
		"argocd/finance/finance-reporting":  {model.AwaitingApproval, "manual sync", ""},
		"argocd/argocd/velero":              {model.Stuck, "no operation requested", "zombie"},
		"pulumi/infra/network-prod":         {model.Stuck, "the stack is currently locked by 1 lock(s)", "holds the stack's lock"},
		"pulumi/infra/dns-zones":            {model.Stuck, "which does not exist", "missing Update"},
		"pulumi/infra/edge-cdn":             {model.AwaitingApproval, "proposed", ""},
		"pulumi/platform-infra/k8s-staging": {model.Running, "running", ""},
		"pulumi/finance/cost-reports":       {model.Stuck, "UpdateFailed", "Stalled"},
		"pulumi/infra/analytics-preview":    {model.Idle, "", ""},
		"argocd/argocd/platform-root":       {model.Idle, "", ""},
	} {
		u, ok := units[ref]
		if !ok {
			t.Errorf("%s: not in the list", ref)
			continue
		}
		if u.Run != w.run || !strings.Contains(u.RunReason, w.reason) || !strings.Contains(u.StuckRule, w.rule) {
			t.Errorf("%s: run %s (%q, rule %q), want %s with %q and rule %q", ref, u.Run, u.RunReason, u.StuckRule, w.run, w.reason, w.rule)
		}
	}

	heal := units["argocd/argocd/checkout-web"]
	if heal == nil || heal.Sync != model.Drifted || heal.Automation != model.SelfHeal {
		t.Errorf("checkout-web: %+v, want drifted with self-heal", heal)
	}
	if u := units["argocd/argocd/kyverno"]; u == nil || u.Automation != model.Paused || u.Pause == nil || u.Pause.By != "sre-lead@example.com" {
		t.Errorf("kyverno: want paused by driftdeck, got %+v", u)
	}
	if u := units["argocd/argocd/grafana"]; u == nil || !u.Argo.MultiSource {
		t.Error("grafana: want a multi-source app")
	}
	if u := units["pulumi/infra/analytics-preview"]; u == nil || !u.Stack.Preview {
		t.Error("analytics-preview: want spec.preview")
	}
	owners := map[string]int{}
	for _, u := range units {
		if u.Owner != "" {
			owners[u.Owner]++
		}
	}
	if owners["ApplicationSet/storefront-services"] < 5 || owners["Application/platform-root"] < 5 {
		t.Errorf("owners: %v", owners)
	}
	if units["argocd/argocd/billing-invoicer"].Window == "" {
		t.Error("billing-invoicer: no window shown")
	}
}

func TestDemoIdentityAndPermissions(t *testing.T) {
	c, _, _, _ := startDemo(t)
	ctx := context.Background()
	id, err := c.Access.Identity(ctx)
	if err != nil || id != demo.User {
		t.Fatalf("identity %q, %v", id, err)
	}
	v, err := c.Access.Can(ctx, "patch", argocd.Applications, demo.ReadOnlyNamespace, "")
	if err != nil || v.Allowed || !strings.Contains(v.Reason, "may not patch") {
		t.Errorf("patch in %s: %+v, %v; want denied with a reason", demo.ReadOnlyNamespace, v, err)
	}
	if v, err := c.Access.Can(ctx, "patch", argocd.Applications, "argocd", ""); err != nil || !v.Allowed {
		t.Errorf("patch in argocd: %+v, %v", v, err)
	}
	crd, err := c.Dynamic.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}).
		Get(ctx, "applications.argoproj.io", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	_, found, _ := unstructured.NestedMap(versions[0].(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "properties",
		"syncPolicy", "properties", "automated", "properties", "enabled")
	if !found {
		t.Error("the Application CRD schema lacks spec.syncPolicy.automated.enabled")
	}
}

// The staged runs move on: the running sync and update finish, self-heal
// reverts the hand edit, and breaking the dead run's lock lets the Stack's
// next update succeed.
func TestDemoRunsMoveOn(t *testing.T) {
	c, f, _, _ := startDemo(t)
	ctx := context.Background()

	// Break the lock as driftdeck's recovery does: delete the lock object,
	// then request a run.
	stack, err := c.Dynamic.Resource(pulumiop.Stacks).Namespace("infra").Get(ctx, "network-prod", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	backend, _, _ := unstructured.NestedString(stack.Object, "spec", "backend")
	lockDir := filepath.Join(strings.TrimPrefix(backend, "file://"), ".pulumi", "locks", "organization", "network", "prod")
	locks, _ := os.ReadDir(lockDir)
	if len(locks) != 1 {
		t.Fatalf("%d lock files in %s", len(locks), lockDir)
	}
	if err := os.Remove(filepath.Join(lockDir, locks[0].Name())); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{pulumiop.AnnotationReconcileRequest: "after-unlock"}}})
	if _, err := c.Dynamic.Resource(pulumiop.Stacks).Namespace("infra").Patch(ctx, "network-prod", types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}

	deadline := time.Now().Add(25 * time.Second)
	pending := map[string]func(*model.Unit) bool{
		"argocd/argocd/catalog":             func(u *model.Unit) bool { return u.Run == model.Idle && u.Sync == model.InSync },
		"argocd/argocd/checkout-web":        func(u *model.Unit) bool { return u.Run == model.Idle && u.Sync == model.InSync },
		"pulumi/platform-infra/k8s-staging": func(u *model.Unit) bool { return u.Run == model.Idle && u.Sync == model.InSync },
		"pulumi/infra/network-prod": func(u *model.Unit) bool {
			return u.Run == model.Idle && u.Stack.LastState == "succeeded" && u.Stack.LastRequest == "after-unlock"
		},
	}
	for len(pending) > 0 && time.Now().Before(deadline) {
		units := unitsByRef(f)
		for ref, done := range pending {
			if u := units[ref]; u != nil && done(u) {
				delete(pending, ref)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	units := unitsByRef(f)
	for ref := range pending {
		u := units[ref]
		t.Errorf("%s did not move on: run %s (%s), sync %s", ref, u.Run, u.RunReason, u.Sync)
	}
	app, err := c.Dynamic.Resource(argocd.Applications).Namespace("argocd").Get(ctx, "checkout-web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	auto, _, _ := unstructured.NestedBool(app.Object, "status", "operationState", "operation", "initiatedBy", "automated")
	if !auto {
		t.Error("checkout-web was not reverted by an automated (self-heal) sync")
	}
}

// BenchmarkStart measures Start (target: well under 100ms) and the time to a
// complete list in the store (target: under a second).
func BenchmarkStart(b *testing.B) {
	var listed time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		began := time.Now()
		c, err := demo.Start(ctx, demo.Options{Timings: demo.Timings{DriftEvery: -1}})
		if err != nil {
			b.Fatal(err)
		}
		f := fleet.New(fleet.Options{})
		if err := f.Add(ctx, c, ""); err != nil {
			b.Fatal(err)
		}
		if err := f.WaitSynced(ctx); err != nil {
			b.Fatal(err)
		}
		listed += time.Since(began)
		cancel()
	}
	b.ReportMetric(float64(listed.Milliseconds())/float64(b.N), "ms-to-list/op")
}
