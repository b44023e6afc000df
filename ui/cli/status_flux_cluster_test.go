package cli

import (
	"encoding/json"
	"fmt"
	"testing"

	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// status -o json carries what a script acts on for Flux and Terraform
// units, read from the upstream CRDs' objects: the reconcile request and
// whether it was handled, a Terraform's full pending plan id, stale flag
// and held lock id, a HelmRelease's failures against its retries.
func TestClusterStatusJSONHasFluxAndTerraformFields(t *testing.T) {
	c := testcluster.SharedNewestUpstream(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	kc := testcluster.Kubeconfig(t, c.Config(), "test")
	const plan, lock = "plan-main-1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d", "f2ab685b-f84d-ac0e-1b2c-3d4e5f607182"

	fluxUnit(t, dyn, flux.Kustomizations[0], fmt.Sprintf(`{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":"web","namespace":%q,
		"annotations":{"reconcile.fluxcd.io/requestedAt":"token-2"}},"spec":{"interval":"10m","prune":true,"sourceRef":{"kind":"GitRepository","name":"infra"}}}`, ns),
		`{"lastHandledReconcileAt":"token-1"}`)
	tf := `{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform","metadata":{"name":%q,"namespace":%q},
		"spec":{"interval":"10m","path":"./infra","sourceRef":{"kind":"GitRepository","name":"infra"}}}`
	fluxUnit(t, dyn, tofu.Terraforms[0], fmt.Sprintf(tf, "stale", ns), `{"plan":{"pending":"`+plan+`"},"lastPlannedGeneration":7}`)
	fluxUnit(t, dyn, tofu.Terraforms[0], fmt.Sprintf(tf, "locked", ns), `{"lock":{"pending":"`+lock+`"},"lastPlannedGeneration":1}`)
	fluxUnit(t, dyn, flux.HelmReleases[0], fmt.Sprintf(`{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"prom","namespace":%q},
		"spec":{"interval":"30m","chart":{"spec":{"chart":"kube-prometheus-stack","sourceRef":{"kind":"HelmRepository","name":"prom"}}},"upgrade":{"remediation":{"retries":3}}}}`, ns),
		`{"failures":4,"upgradeFailures":4,"lastAttemptedReleaseAction":"upgrade","conditions":[
			{"type":"Stalled","status":"True","reason":"RetriesExceeded","message":"Failed to upgrade after 4 attempt(s)","lastTransitionTime":"2026-12-01T10:00:00Z"},
			{"type":"Ready","status":"False","reason":"UpgradeFailed","message":"upgrade failed","lastTransitionTime":"2026-12-01T10:00:00Z"}]}`)

	code, out, stderr := run(t, "status", "-n", ns, "-o", "json", "--kubeconfig", kc)
	if code != 0 {
		t.Fatalf("status: exit %d\n%s", code, stderr)
	}
	var recs []unitRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	by := map[string]unitRecord{}
	for _, r := range recs {
		by[r.Name] = r
	}
	if r := by["web"].Reconcile; r == nil || r.RequestedAt != "token-2" || r.LastHandledAt != "token-1" || r.Handled {
		t.Errorf("web: reconcile %+v, want requested token-2, handled token-1, not handled", r)
	}
	if tr := by["stale"].Terraform; tr == nil || tr.PendingPlan != plan || !tr.PlanStale || tr.LastPlannedGeneration != 7 {
		t.Errorf("stale: terraform %+v, want the full pending plan, stale, planned at generation 7", tr)
	}
	if tr := by["locked"].Terraform; tr == nil || tr.LockID != lock || tr.PlanStale || tr.PendingPlan != "" {
		t.Errorf("locked: terraform %+v, want the held lock id and no plan", tr)
	}
	if h := by["prom"].HelmRelease; h == nil || !h.RetriesExhausted || h.UpgradeFailures != 4 || h.UpgradeRetries != 3 || h.LastAction != "upgrade" {
		t.Errorf("prom: helmRelease %+v, want 4 upgrade failures of 3 retries, exhausted", h)
	}
	if by["web"].Terraform != nil || by["web"].HelmRelease != nil || by["prom"].Terraform != nil {
		t.Errorf("engine-specific fields on another engine's unit: %+v", by)
	}
}
