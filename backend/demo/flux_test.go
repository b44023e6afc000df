package demo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// TestDemoShowsEveryFluxAndTerraformState: the demo's Flux and
// tofu-controller objects reach the list in every state the adapters tell
// apart, each with the reason and the rule a user reads.
func TestDemoShowsEveryFluxAndTerraformState(t *testing.T) {
	_, f, _, _ := startDemo(t)
	units := unitsByRef(f)
	count := map[model.Engine]int{}
	for _, u := range units {
		count[u.Key.Engine]++
		if len(u.ReadErrors) > 0 {
			t.Errorf("%s: read errors %v", u.Key.Ref(), u.ReadErrors)
		}
	}
	if count[model.EngineKustomization] < 8 || count[model.EngineHelmRelease] < 4 || count[model.EngineTerraform] < 8 {
		t.Errorf("units per engine %v: want at least 8 Kustomizations, 4 HelmReleases and 8 Terraforms", count)
	}

	type want struct {
		run    model.RunState
		reason string // a part of RunReason
		rule   string // a part of StuckRule
		check  func(u *model.Unit) bool
	}
	for ref, w := range map[string]want{
		"kustomization/flux-system/flux-system": {model.Idle, "", "", func(u *model.Unit) bool {
			return u.Sync == model.InSync && u.HealthNative == "Ready" && u.Flux.RequestedAt != "" && u.Flux.RequestedAt == u.Flux.LastHandledAt
		}},
		"kustomization/flux-system/apps": {model.Running, "Progressing: Building manifests", "", func(u *model.Unit) bool {
			return u.HealthNative == "Reconciling" && len(u.Flux.DependsOn) == 1
		}},
		"kustomization/flux-system/tenants": {model.Stuck, "Stalled: InvalidCELExpression", "Stalled condition is True", nil},
		"kustomization/flux-system/ingress-nginx": {model.Stuck, "Running health checks for revision main@sha1:", "running for longer than the 10m threshold", func(u *model.Unit) bool {
			return u.HealthNative == "Reconciling" && u.Persisting == ""
		}},
		"kustomization/team-web/web-frontend": {model.Stuck, "BuildFailed", "failing (BuildFailed) on revision main@sha1:", func(u *model.Unit) bool { return u.Flux.LastAttempted != u.Flux.LastApplied }},
		"kustomization/team-web/web-backend":  {model.Running, "DependencyNotReady: dependency 'team-web/web-frontend' is not ready", "", func(u *model.Unit) bool { return u.Persisting != "" }},
		"kustomization/team-web/web-config": {model.Stuck, "the source GitRepository/team-web/web-config is not ready: AuthenticationFailed", "source is not Ready", func(u *model.Unit) bool {
			return u.SourceState != nil && u.SourceState.Ready == "False" && u.SourceState.Reason == "AuthenticationFailed"
		}},
		"kustomization/flux-system/monitoring-crds": {model.Idle, "suspended", "", func(u *model.Unit) bool { return u.Automation == model.Suspended }},
		"helmrelease/flux-system/cert-manager": {model.Idle, "", "", func(u *model.Unit) bool {
			h := u.Flux.Helm
			return len(h.History) == 3 && h.History[0].Status == "deployed" && u.Applied == "v1.16.1" && u.Flux.Source.String() == "HelmRepository/flux-system/jetstack"
		}},
		"helmrelease/monitoring/kube-prometheus-stack": {model.Stuck, "RetriesExceeded", "upgrade retries exhausted (upgrade failure 3 of 3 allowed retries)", func(u *model.Unit) bool {
			return u.Flux.Helm.RetriesExhausted && u.Flux.Helm.History[0].Status == "failed"
		}},
		"helmrelease/monitoring/grafana": {model.Idle, "suspended", "", func(u *model.Unit) bool {
			return u.Automation == model.Paused && u.Pause != nil && u.Pause.By == "sre-lead@example.com" && !u.Pause.Until.IsZero()
		}},
		"helmrelease/monitoring/loki":        {model.Failed, "(upgrade failure 1 of 3 allowed retries)", "", nil},
		"terraform/flux-system/eks-cluster":  {model.AwaitingApproval, "waits for approval", "set to the full id plan-main-", func(u *model.Unit) bool { return !u.Tofu.PlanStale }},
		"terraform/flux-system/vpc-network":  {model.AwaitingApproval, "it is stale (planned at generation 5, the spec is at 6)", "", func(u *model.Unit) bool { return u.Tofu.PlanStale }},
		"terraform/flux-system/dns-records":  {model.Idle, "plan only: plan plan-main-", "", func(u *model.Unit) bool { return u.Tofu.PlanOnly }},
		"terraform/flux-system/iam-roles":    {model.Idle, "drift detected", "", func(u *model.Unit) bool { return u.Tofu.DriftFound && u.Tofu.DriftDetection && u.Sync == model.Drifted }},
		"terraform/flux-system/rds-postgres": {model.Stuck, "state lock f2ab685b-f84d-ac0b-a125-378a22877e8d held", "lockIdentifier: f2ab685b-f84d-ac0b-a125-378a22877e8d", nil},
		"terraform/flux-system/s3-buckets":   {model.Idle, "suspended", "", func(u *model.Unit) bool { return u.Automation == model.Suspended }},
		"terraform/flux-system/msk-kafka":    {model.Stuck, "retries exhausted after 3 failure(s)", "RetryLimitReached", nil},
		"terraform/flux-system/cloudfront":   {model.Idle, "", "", func(u *model.Unit) bool { return u.Sync == model.InSync && u.Automation == model.SelfHeal }},
	} {
		u, ok := units[ref]
		if !ok {
			t.Errorf("%s: not in the list", ref)
			continue
		}
		if u.Run != w.run || !strings.Contains(u.RunReason, w.reason) || !strings.Contains(u.StuckRule, w.rule) {
			t.Errorf("%s: run %s (%q, rule %q), want %s with %q and rule %q", ref, u.Run, u.RunReason, u.StuckRule, w.run, w.reason, w.rule)
		}
		if w.check != nil && !w.check(u) {
			t.Errorf("%s: not as staged: %+v flux %+v tofu %+v", ref, u, u.Flux, u.Tofu)
		}
	}
}

// The simulated controllers play by the upstream rules in the demo: a
// reconcile request is handled, and approving the pending plan by its full
// id applies it.
func TestDemoFluxRequestsAndApprovalsAreHandled(t *testing.T) {
	c, f, _, _ := startDemo(t)
	ctx := context.Background()
	pending := unitsByRef(f)["terraform/flux-system/eks-cluster"].Tofu.PendingPlan
	if _, err := c.Dynamic.Resource(tofu.Terraforms[0]).Namespace("flux-system").Patch(ctx, "eks-cluster", types.MergePatchType,
		[]byte(`{"spec":{"approvePlan":"`+pending+`"}}`), metav1.PatchOptions{FieldManager: "flux-client-side-apply"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Dynamic.Resource(flux.Kustomizations[0]).Namespace("team-web").Patch(ctx, "web-frontend", types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"`+flux.AnnotationRequestedAt+`":"demo-request-1"}}}`), metav1.PatchOptions{FieldManager: "flux-client-side-apply"}); err != nil {
		t.Fatal(err)
	}
	var tf, ks *model.Unit
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		units := unitsByRef(f)
		tf, ks = units["terraform/flux-system/eks-cluster"], units["kustomization/team-web/web-frontend"]
		if tf.Tofu.LastAppliedPlan == pending && ks.Flux.LastHandledAt == "demo-request-1" {
			break
		}
	}
	if tf.Tofu.LastAppliedPlan != pending || tf.Tofu.PendingPlan != "" || tf.Run != model.Idle || tf.Sync != model.InSync {
		t.Errorf("the approved plan %s was not applied: %+v, run %s (%s)", pending, tf.Tofu, tf.Run, tf.RunReason)
	}
	if ks.Flux.LastHandledAt != "demo-request-1" {
		t.Errorf("the reconcile request was not handled: %+v", ks.Flux)
	}
}

// Every scenario the demo lists names a unit the list shows.
func TestDemoScenariosNameListedUnits(t *testing.T) {
	_, f, _, _ := startDemo(t)
	units := unitsByRef(f)
	for _, s := range demo.Scenarios {
		if units[s.Unit] == nil {
			t.Errorf("scenario %s (%s): no such unit", s.Unit, s.What)
		}
	}
}

// In the demo, replan of the stale plan through the write path has the
// simulated tofu-controller plan again from the current spec: the new plan
// is not stale, and approving it by its full id applies it.
func TestDemoReplanYieldsAPlanThatCanBeApproved(t *testing.T) {
	_, f, _, _ := startDemo(t)
	ctx := context.Background()
	exec := &actions.Executor{Cluster: f.Cluster}
	const ref = "terraform/flux-system/vpc-network"
	stale := unitsByRef(f)[ref]
	if !stale.Tofu.PlanStale {
		t.Fatalf("%s is not staged stale: %+v", ref, stale.Tofu)
	}
	if _, err := exec.Execute(ctx, actions.Request{Kind: actions.Replan, Key: stale.Key, Reason: "spec changed", Revision: stale.Tofu.PendingPlan}); err != nil {
		t.Fatal(err)
	}
	var u *model.Unit
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if u = unitsByRef(f)[ref]; u.Tofu.PendingPlan != "" && !u.Tofu.PlanStale && u.Tofu.LastPlannedGen == u.Generation {
			break
		}
	}
	if u.Tofu.PendingPlan == "" || u.Tofu.PlanStale || u.Run != model.AwaitingApproval {
		t.Fatalf("no new plan after the replan: %+v, run %s (%s)", u.Tofu, u.Run, u.RunReason)
	}
	plan := u.Tofu.PendingPlan
	if _, err := exec.Execute(ctx, actions.Request{Kind: actions.Approve, Key: u.Key, Reason: "new plan reviewed", Revision: plan}); err != nil {
		t.Fatalf("approving the new plan %s: %v", plan, err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if u = unitsByRef(f)[ref]; u.Tofu.LastAppliedPlan == plan {
			break
		}
	}
	if u.Tofu.LastAppliedPlan != plan || u.Tofu.PendingPlan != "" {
		t.Errorf("the approved new plan %s was not applied: %+v", plan, u.Tofu)
	}
}
