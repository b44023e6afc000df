package fleetunits

import (
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/tofu"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

// through is Through, failing the test on an error.
func through(t *testing.T, obj, status map[string]any, decode func([]byte) (map[string]any, error),
	convert func(string, map[string]any) *model.Unit) *model.Unit {
	t.Helper()
	u, err := Through(obj, status, decode, convert)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// The benchmark's Flux units must read as the states they are generated in,
// or the fleet would measure a different mix than the one it claims.
func TestGeneratedFluxUnitsReadAsTheirState(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	seen := map[fleetgen.FluxState]bool{}
	for i := range 200 {
		state := fleetgen.StateOfFlux(i)
		seen[state] = true
		obj, status := fleetgen.Kustomization(i, now)
		k := through(t, obj, status, flux.DecodeKustomization, flux.ConvertKustomization)
		obj, status = fleetgen.HelmRelease(i, now)
		h := through(t, obj, status, flux.DecodeHelmRelease, flux.ConvertHelmRelease)
		for _, u := range []*model.Unit{k, h} {
			if u.Flux == nil {
				t.Fatalf("%s %d: no Flux facts", u.Kind, i)
			}
			if u.Flux.Suspended != (state == fleetgen.FluxSuspended) {
				t.Errorf("%s %d (%s): suspended %v", u.Kind, i, state, u.Flux.Suspended)
			}
			failing := state == fleetgen.FluxFailed || state == fleetgen.FluxStalled || state == fleetgen.FluxDependency
			if failing && u.Observed == model.Idle {
				t.Errorf("%s %d (%s): observed idle", u.Kind, i, state)
			}
			if state == fleetgen.FluxReady && u.Observed != model.Idle {
				t.Errorf("%s %d (ready): observed %v (%s)", u.Kind, i, u.Observed, u.RunReason)
			}
		}
		if want := state == fleetgen.FluxStalled; h.Flux.Helm.RetriesExhausted != want {
			t.Errorf("HelmRelease %d (%s): retries exhausted %v", i, state, h.Flux.Helm.RetriesExhausted)
		}
		if len(h.Flux.Helm.History) != 5 {
			t.Errorf("HelmRelease %d: %d history entries, want 5", i, len(h.Flux.Helm.History))
		}
	}
	if len(seen) != 6 {
		t.Errorf("200 objects cover %d of the 6 Flux states", len(seen))
	}
}

func TestGeneratedTerraformsReadAsTheirState(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 200 {
		state := fleetgen.StateOfTerraform(i)
		obj, status := fleetgen.Terraform(i, now)
		u := through(t, obj, status, tofu.DecodeSlim, tofu.Convert)
		if u.Tofu == nil {
			t.Fatalf("Terraform %d: no tofu facts", i)
		}
		pending, _ := status["plan"].(map[string]any)["pending"].(string)
		if (state == fleetgen.TerraformPending) != (u.Tofu.PendingPlan != "") || u.Tofu.PendingPlan != pending {
			t.Errorf("Terraform %d (%s): pending plan %q", i, state, u.Tofu.PendingPlan)
		}
		if state == fleetgen.TerraformPending && u.Observed != model.AwaitingApproval {
			t.Errorf("Terraform %d (pending): observed %v", i, u.Observed)
		}
		if u.Tofu.DriftFound != (state == fleetgen.TerraformDrift) {
			t.Errorf("Terraform %d (%s): drift found %v", i, state, u.Tofu.DriftFound)
		}
		if (u.Tofu.LockPending != "") != (state == fleetgen.TerraformLocked) {
			t.Errorf("Terraform %d (%s): lock pending %q", i, state, u.Tofu.LockPending)
		}
		if state == fleetgen.TerraformApplied && u.Observed != model.Idle {
			t.Errorf("Terraform %d (applied): observed %v (%s)", i, u.Observed, u.RunReason)
		}
	}
}
