package detail

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
)

// At 80 columns nothing of a Flux unit's detail is cut: long revisions with
// their notes and the controller's messages wrap whole, and escapes from the
// cluster show as text.
func TestFluxDetailWrapsWholeAt80Columns(t *testing.T) {
	attempted, applied := "main@sha1:c936fd63af42a152060a49c15cd4f2153c7dba02", "main@sha1:1f0e2d3c4b5a69788796a5b4c3d2e1f000112233"
	buildFailed := "kustomize build failed: '/tmp/kustomization-3318427741/apps/web-frontend/overlays/prod' must resolve to a file \x1b]0;pwned\x07"
	u := &model.Unit{
		Key:  model.Key{Context: "prod", Engine: model.EngineKustomization, Namespace: "team-web", Name: "web-frontend"},
		Kind: "Kustomization", Generation: 3, Run: model.Stuck, RunSince: now.Add(-40 * time.Minute),
		Flux: &model.FluxFacts{
			Source:        model.Ref{Kind: "GitRepository", Namespace: "team-web", Name: "web-frontend-configuration-repository"},
			DependsOn:     []string{"team-web/web-frontend-database-migrations", "team-web/web-frontend-shared-config"},
			LastAttempted: attempted, LastApplied: applied, ObservedGen: 3, Interval: "10m",
			RequestedAt: "2026-11-29T03:10:00Z", LastHandledAt: "2026-11-29T03:10:00Z",
			Conditions: []model.Condition{{Type: "Ready", Status: "False", Reason: "DependencyNotReady", Message: "dependency 'team-web/web-frontend-database-migrations' is not ready", Since: now.Add(-time.Minute)},
				{Type: "Reconciling", Status: "True", Reason: "ProgressingWithRetry", Message: buildFailed, Since: now.Add(-40 * time.Minute)}},
		},
	}
	m := New(themes.Dark(), u)
	m.SetSize(80, 80)
	m.SetAvailability([]model.Availability{})
	out := m.View(now)
	if strings.Contains(out, "\x1b]0;") {
		t.Fatal("an OSC sequence from a condition message reached the terminal")
	}
	for i, l := range strings.Split(out, "\n") {
		if strings.Contains(ansi.Strip(l), "…") || ansi.StringWidth(l) > 80 {
			t.Errorf("line %d is cut or too wide: %q", i, ansi.Strip(l))
		}
	}
	all := words(out)
	for _, want := range []string{
		"attempted " + attempted, "applied " + applied + " (not the attempted one)",
		"depends on team-web/web-frontend-database-migrations, team-web/web-frontend-shared-config not ready",
		"source GitRepository/team-web/web-frontend-configuration-repository",
		"reconcile requested 2026-11-29T03:10:00Z -> handled", `prod' must resolve to a file \x1b]0;pwned\x07`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the detail lacks %q:\n%s", want, ansi.Strip(out))
		}
	}
}

// A Terraform's pending plan is shown by its full id with what keeps it from
// being applied: stale, plan only, or approved.
func TestTerraformDetailNamesThePendingPlanWhole(t *testing.T) {
	const id = "plan-main-cdecbc1eba"
	for _, c := range []struct {
		facts model.TofuFacts
		want  []string
	}{
		{model.TofuFacts{PendingPlan: id, DriftDetection: true}, []string{"pending " + id + " waits for approval", "mode manual approval", "drift check on"}},
		{model.TofuFacts{PendingPlan: id, PlanStale: true, LastPlannedGen: 5}, []string{"pending " + id + " waits for approval", "stale: planned at generation 5, the spec is at 6", "drift check off"}},
		{model.TofuFacts{PendingPlan: id, PlanOnly: true}, []string{"pending " + id + " never applied (plan only)", "mode plan only"}},
		{model.TofuFacts{PendingPlan: id, ApprovePlan: id}, []string{"pending " + id + " approved, to be applied"}},
		{model.TofuFacts{LockPending: "f2ab685b-f84d-ac0b-a125-378a22877e8d", ForceUnlock: "no", ApprovePlan: "auto", ReconciliationFailures: 2, Retries: 3},
			[]string{"lock held: f2ab685b-f84d-ac0b-a125-378a22877e8d (forceUnlock: no)", "mode approvePlan: auto", "failures 2 of 3 retries", "pending none"}},
		{model.TofuFacts{DriftFound: true, LastDriftAt: now.Add(-3 * time.Minute), ApprovePlan: "disable"}, []string{"drift drift found 3m ago", "drift detection only (approvePlan: disable)"}},
		{model.TofuFacts{Outputs: []string{"cluster_endpoint", "kubeconfig"}, OutputsSecret: "eks-outputs"},
			[]string{"outputs cluster_endpoint, kubeconfig (values in Secret flux-system/eks-outputs, not shown)"}},
	} {
		f := c.facts
		f.Workspace = "default"
		u := &model.Unit{Key: model.Key{Engine: model.EngineTerraform, Namespace: "flux-system", Name: "eks-cluster"}, Kind: "Terraform", Generation: 6, Tofu: &f}
		m := New(themes.NoColor(), u)
		m.SetSize(100, 60)
		all := words(m.View(now))
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%+v: the detail lacks %q:\n%s", c.facts, w, all)
			}
		}
	}
}

// The source line is what the source object says: not ready for how long
// and why (escaped), or ready with the artifact the unit reads.
func TestFluxDetailShowsTheSourcesOwnState(t *testing.T) {
	src := model.Ref{Kind: "GitRepository", Namespace: "team-web", Name: "web-config"}
	u := &model.Unit{
		Key:  model.Key{Context: "prod", Engine: model.EngineKustomization, Namespace: "team-web", Name: "web-config"},
		Kind: "Kustomization", Run: model.Stuck,
		Flux: &model.FluxFacts{Source: src},
		SourceState: &model.SourceState{Ref: src, Ready: "False", Reason: "AuthenticationFailed",
			Message: "ssh: unable to authenticate \x1b]52;c;cHduZWQ=\x07", Since: now.Add(-20 * time.Minute)},
	}
	m := New(themes.Dark(), u)
	m.SetSize(100, 60)
	m.SetAvailability([]model.Availability{})
	out := m.View(now)
	if strings.Contains(out, "\x1b]52") {
		t.Fatal("an OSC 52 sequence from the source's message reached the terminal")
	}
	all := words(out)
	for _, want := range []string{"source GitRepository/team-web/web-config not ready for 20m", `AuthenticationFailed: ssh: unable to authenticate \x1b]52;c;cHduZWQ=\x07`} {
		if !strings.Contains(all, want) {
			t.Errorf("the detail lacks %q:\n%s", want, ansi.Strip(out))
		}
	}

	u.SourceState = &model.SourceState{Ref: src, Ready: "True", Revision: "main@sha1:42d7b0fb"}
	m = New(themes.Dark(), u)
	m.SetSize(100, 60)
	m.SetAvailability([]model.Availability{})
	if all := words(m.View(now)); !strings.Contains(all, "source GitRepository/team-web/web-config ready") || !strings.Contains(all, "artifact main@sha1:42d7b0fb") {
		t.Errorf("a ready source is not shown with its artifact:\n%s", all)
	}
}
