package actions

import (
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

func terraformUnit(spec, status map[string]any) *model.Unit {
	return tofu.Convert("c", map[string]any{
		"metadata": map[string]any{"name": "infra", "namespace": "ns", "generation": int64(2)},
		"spec":     spec, "status": status,
	})
}

func TestFluxAndTofuActionsSayWhyNot(t *testing.T) {
	pending := map[string]any{"plan": map[string]any{"pending": planID}, "lastPlannedGeneration": int64(2)}
	stale := map[string]any{"plan": map[string]any{"pending": planID}, "lastPlannedGeneration": int64(1)}
	paused := flux.ConvertKustomization("c", map[string]any{
		"metadata": map[string]any{"name": "web", "namespace": "ns", "annotations": map[string]any{"driftdeck.io/paused-by": "ana", "driftdeck.io/paused-previous": "null"}},
		"spec":     map[string]any{"suspend": true},
	})
	held := flux.ConvertKustomization("c", map[string]any{"metadata": map[string]any{"name": "web"}, "spec": map[string]any{"suspend": true}})
	for _, tc := range []struct {
		name string
		u    *model.Unit
		kind Kind
		want string // "" possible
	}{
		{"approve pending", terraformUnit(nil, pending), Approve, ""},
		{"approve stale", terraformUnit(nil, stale), Approve, "stale"},
		{"approve nothing", terraformUnit(nil, nil), Approve, "no plan is pending"},
		{"approve approved", terraformUnit(map[string]any{"approvePlan": planID}, pending), Approve, "already approved"},
		{"approve auto", terraformUnit(map[string]any{"approvePlan": "auto"}, pending), Approve, "on its own"},
		{"approve plan-only", terraformUnit(map[string]any{"planOnly": true}, pending), Approve, "plan-only"},
		{"force-unlock none", terraformUnit(nil, pending), ForceUnlock, "no state lock"},
		{"force-unlock held", terraformUnit(nil, map[string]any{"lock": map[string]any{"pending": lockID}}), ForceUnlock, ""},
		{"replan nothing", terraformUnit(nil, nil), Replan, "no plan is pending"},
		{"resume driftdeck's pause", paused, Resume, ""},
		{"pause again", paused, Pause, "already paused by ana"},
		{"resume another's suspend", held, Resume, ""}, // ends it, as flux resume does
		{"pause suspended", held, Pause, "already suspended"},
		{"refresh suspended", held, Refresh, "suspended"},
	} {
		got := stateWhyNot(tc.u, tc.kind)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: why-not %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, e := range model.ClusterEngines() {
		pauseSpec, _ := SpecOf(Pause)
		resumeSpec, _ := SpecOf(Resume)
		if !pauseSpec.Knows(e) || !resumeSpec.Knows(e) {
			t.Errorf("pause and resume must know %s units (freeze spans every engine of a cluster)", e)
		}
	}
}
