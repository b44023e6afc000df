package ui

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// fullPlanID is the pending plan of the Terraform fixture: the screens must
// show it whole, never a prefix.
const fullPlanID = "plan-main-cdecbc1eba"

// fluxFixtureUnits are Flux and tofu-controller units as the adapters make
// them from objects, dated against fixedNow.
func fluxFixtureUnits(t *testing.T) []*model.Unit {
	t.Helper()
	at := func(d time.Duration) string { return fixedNow.Add(-d).UTC().Format(time.RFC3339) }
	obj := func(format string, args ...any) map[string]any {
		var o map[string]any
		if err := json.Unmarshal([]byte(fmt.Sprintf(format, args...)), &o); err != nil {
			t.Fatalf("fixture: %v", err)
		}
		return o
	}
	const ctx = "prod-eu-1"
	units := []*model.Unit{
		flux.ConvertKustomization(ctx, obj(`{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization",
			"metadata":{"namespace":"team-web","name":"web-frontend","generation":3,"annotations":{"reconcile.fluxcd.io/requestedAt":"2026-11-29T03:10:00Z"}},
			"spec":{"interval":"10m","sourceRef":{"kind":"GitRepository","name":"web"}},
			"status":{"observedGeneration":3,"lastAttemptedRevision":"main@sha1:c936fd63af42a152060a49c15cd4f2153c7dba02","lastAppliedRevision":"main@sha1:1f0e2d3c4b5a69788796a5b4c3d2e1f000112233",
			"lastHandledReconcileAt":"2026-11-29T03:10:00Z",
			"conditions":[{"type":"Reconciling","status":"True","reason":"ProgressingWithRetry","message":"Detecting drift","lastTransitionTime":%q},
			{"type":"Ready","status":"False","reason":"BuildFailed","message":"kustomize build failed: '/tmp/kustomization-3318427741/overlays/prod' must resolve to a file \u001b]0;pwned\u0007","lastTransitionTime":%q}]}}`, at(40*time.Minute), at(40*time.Minute))),
		flux.ConvertKustomization(ctx, obj(`{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization",
			"metadata":{"namespace":"team-web","name":"web-backend","generation":2,"annotations":{"reconcile.fluxcd.io/requestedAt":"req-2"}},
			"spec":{"interval":"10m","sourceRef":{"kind":"GitRepository","name":"web"},"dependsOn":[{"name":"web-frontend"}]},
			"status":{"observedGeneration":2,"lastAttemptedRevision":"main@sha1:1f0e2d3c4b5a69788796a5b4c3d2e1f000112233","lastAppliedRevision":"main@sha1:1f0e2d3c4b5a69788796a5b4c3d2e1f000112233",
			"lastHandledReconcileAt":"req-1",
			"conditions":[{"type":"Ready","status":"False","reason":"DependencyNotReady","message":"dependency 'team-web/web-frontend' is not ready","lastTransitionTime":%q}]}}`, at(4*time.Minute))),
		flux.ConvertKustomization(ctx, obj(`{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization",
			"metadata":{"namespace":"team-web","name":"web-config","generation":1},
			"spec":{"interval":"10m","sourceRef":{"kind":"GitRepository","name":"web-config"}},
			"status":{"observedGeneration":1,
			"conditions":[{"type":"Ready","status":"False","reason":"ArtifactFailed","message":"Source artifact not found, retrying in 30s","lastTransitionTime":%q}]}}`, at(6*time.Minute))),
		flux.ConvertHelmRelease(ctx, obj(`{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease",
			"metadata":{"namespace":"monitoring","name":"kube-prometheus-stack","generation":4},
			"spec":{"interval":"30m","releaseName":"kube-prometheus-stack","chart":{"spec":{"chart":"kube-prometheus-stack","sourceRef":{"kind":"HelmRepository","name":"prometheus-community","namespace":"flux-system"}}},
			"install":{"remediation":{"retries":3}},"upgrade":{"remediation":{"retries":3}}},
			"status":{"observedGeneration":4,"lastAttemptedRevision":"65.1.0","failures":4,"upgradeFailures":3,"lastAttemptedReleaseAction":"upgrade",
			"history":[{"version":9,"status":"failed","chartName":"kube-prometheus-stack","chartVersion":"65.1.0","appVersion":"v0.77.1","lastDeployed":%q},
			{"version":8,"status":"deployed","chartName":"kube-prometheus-stack","chartVersion":"62.7.0","appVersion":"v0.76.1","lastDeployed":%q}],
			"conditions":[{"type":"Stalled","status":"True","reason":"RetriesExceeded","message":"Failed to upgrade after 3 attempt(s)","lastTransitionTime":%q},
			{"type":"Ready","status":"False","reason":"UpgradeFailed","message":"Helm upgrade failed: spec.selector: Invalid value: field is immutable","lastTransitionTime":%q}]}}`,
			at(48*time.Minute), at(21*24*time.Hour), at(31*time.Minute), at(31*time.Minute))),
		tofu.Convert(ctx, obj(`{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform",
			"metadata":{"namespace":"flux-system","name":"eks-cluster","generation":4},
			"spec":{"interval":"10m","path":"./eks","sourceRef":{"kind":"GitRepository","name":"infra-modules"},"storeReadablePlan":"human"},
			"status":{"observedGeneration":4,"lastPlannedGeneration":4,"lastAttemptedRevision":"main@sha1:cdecbc1eba99f3c1b8a2d4e6f8091a2b3c4d5e6f","lastPlannedRevision":"main@sha1:cdecbc1eba99f3c1b8a2d4e6f8091a2b3c4d5e6f",
			"lastAppliedRevision":"main@sha1:0a1b2c3d4e5f60718293a4b5c6d7e8f901234567","lastPlanAt":%q,"plan":{"pending":%q},
			"conditions":[{"type":"Ready","status":"Unknown","reason":"TerraformPlannedWithChanges","message":"Plan generated: 2 to add, 1 to change, 1 to destroy","lastTransitionTime":%q}]}}`,
			at(9*time.Minute), fullPlanID, at(9*time.Minute))),
		tofu.Convert(ctx, obj(`{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform",
			"metadata":{"namespace":"flux-system","name":"rds-postgres","generation":3},
			"spec":{"interval":"10m","path":"./rds","approvePlan":"auto","sourceRef":{"kind":"GitRepository","name":"infra-modules"}},
			"status":{"observedGeneration":3,"lock":{"pending":"f2ab685b-f84d-ac0b-a125-378a22877e8d"},
			"conditions":[{"type":"StateLocked","status":"True","reason":"LockHeld","message":"Error acquiring the state lock","lastTransitionTime":%q},
			{"type":"Ready","status":"False","reason":"LockHeld","message":"Error acquiring the state lock","lastTransitionTime":%q}]}}`, at(35*time.Minute), at(35*time.Minute))),
		tofu.Convert(ctx, obj(`{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform",
			"metadata":{"namespace":"flux-system","name":"iam-roles","generation":2},
			"spec":{"interval":"10m","path":"./iam","approvePlan":"disable","sourceRef":{"kind":"GitRepository","name":"infra-modules"}},
			"status":{"observedGeneration":2,"lastDriftDetectedAt":%q,
			"conditions":[{"type":"Ready","status":"False","reason":"DriftDetected","message":"Drift detected: 1 to add, 2 to change, 0 to destroy","lastTransitionTime":%q}]}}`, at(3*time.Minute), at(3*time.Minute))),
	}
	for _, u := range units {
		if len(u.ReadErrors) > 0 {
			t.Fatalf("fixture %s: %v", u.Key.Ref(), u.ReadErrors)
		}
		model.Derive(u, fixedNow, model.DefaultThresholds)
	}
	return units
}

// newFluxTestApp is the test app with the Flux and tofu units beside the
// Argo CD and Pulumi ones.
func newFluxTestApp(t *testing.T, w, h int) *App {
	t.Helper()
	a, _ := newFluxTestAppWith(t, w, h)
	return a
}

// newFluxTestAppWith is newFluxTestApp with its backend and, when given,
// more units.
func newFluxTestAppWith(t *testing.T, w, h int, more ...*model.Unit) (*App, *fakeBackend) {
	t.Helper()
	allowingExecutor() // made before a key waits for its answer
	be := &fakeBackend{}
	units := append(append(fixtureUnits(), fluxFixtureUnits(t)...), more...)
	batch := store.Batch{Units: units, Status: []store.ContextStatus{{
		Context: "prod-eu-1", Identity: "oncall@example.com", Connected: true, Synced: true, LastEvent: fixedNow,
	}}}
	a := New(Options{Backend: be, Theme: "dark", Initial: batch, Now: func() time.Time { return fixedNow }})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a, be
}
