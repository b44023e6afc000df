package actions

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

func TestEveryKindInTheTableCanBeDoneOnItsEngines(t *testing.T) {
	for _, s := range Specs() {
		if k, err := ParseKind(string(s.Kind)); err != nil || k != s.Kind {
			t.Errorf("%s does not parse back: %v", s.Kind, err)
		}
		if s.Help == "" || len(s.Engines()) == 0 {
			t.Errorf("%s has no help line or no engine", s.Kind)
		}
		for _, e := range s.Engines() {
			pl, err := plannerFor(e, s.Kind)
			if s.Kind == Unlock && err == nil {
				// Listed for Stacks, it writes their state backend: the
				// planner refuses, naming who does it.
				if _, err := pl(nil, nil, Request{Kind: Unlock}); err == nil || !strings.Contains(err.Error(), "stackops") {
					t.Errorf("unlock is done by stackops; Execute must say so, got %v", err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s is listed for %s units but cannot be planned: %v", s.Kind, e, err)
			}
		}
	}
	if got := KindsFor(model.EnginePulumi); len(got) != 6 || got[2] != Terminate || got[len(got)-1] != Unlock {
		t.Errorf("Stack actions %v: want retry, approve, terminate, pause, resume, unlock", got)
	}
	if Destructive(Refresh) || !Destructive(Pause) || !Destructive(Kind("made-up")) {
		t.Error("refresh needs no confirmation; pause and unknown kinds do")
	}
}

// Units Bulk must not touch are skipped before any cluster is asked: this
// executor knows no cluster, so an attempted write would fail.
func TestBulkSkipsWhatTheKindCannotDo(t *testing.T) {
	ex := &Executor{Cluster: func(string) (*kube.Cluster, bool) { return nil, false }}
	flux := model.Key{Context: "c", Engine: model.EngineKustomization, Namespace: "ns", Name: "web"}
	stack := model.Key{Context: "c", Engine: model.EnginePulumi, Namespace: "ns", Name: "net"}
	app := model.Key{Context: "c", Engine: model.EngineArgoCD, Namespace: "ns", Name: "web"}

	out := ex.Bulk(context.Background(), BulkRequest{Kind: HardRefresh, Keys: []model.Key{flux, stack, app}, Reason: "x"})
	if out[0].Outcome != OutcomeSkipped || out[0].Why != "hard-refresh is not possible for kustomization units" ||
		out[1].Outcome != OutcomeSkipped || out[1].Why != "hard-refresh is not possible for pulumi units" {
		t.Errorf("outcomes %+v", out)
	}
	if out[2].Outcome != OutcomeFailed || out[2].Err == nil || !strings.Contains(out[2].Why, "unknown context") {
		t.Errorf("the app is attempted (and fails here, with no cluster): %+v", out[2])
	}
	out = ex.Bulk(context.Background(), BulkRequest{Kind: Terminate, Keys: []model.Key{app}, Reason: "x"})
	if out[0].Outcome != OutcomeSkipped || out[0].Why != "terminate is not done in bulk" {
		t.Errorf("terminate in bulk: %+v", out)
	}
}

func TestPlanDifferencesSayWhatChanged(t *testing.T) {
	old := &Plan{Summary: "pause web", Changes: []string{"a.b: 1", "c: x"}, Warnings: []string{"owned"}}
	now := &Plan{Summary: "pause web", Changes: []string{"a.b: 2", "d: y"}, Warnings: []string{"window"}}
	got := strings.Join(PlanDifferences(old, now), "\n")
	for _, want := range []string{"writes a.b: 2 (was 1)", "also writes d: y", "no longer writes c: x", "new warning: window", "no longer warns: owned"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if d := PlanDifferences(old, old); len(d) != 0 {
		t.Errorf("the same plan differs: %v", d)
	}
	// A pause planned again a second later records another time, not another write.
	at := "metadata.annotations.driftdeck.io/paused-at: "
	first := &Plan{Summary: "pause web", Changes: []string{at + "2026-12-05T16:38:29Z", "metadata.annotations.driftdeck.io/paused-reason: INC-9"}}
	again := &Plan{Summary: "pause web", Changes: []string{at + "2026-12-05T16:38:30Z", "metadata.annotations.driftdeck.io/paused-reason: INC-9"}}
	if d := PlanDifferences(first, again); len(d) != 0 {
		t.Errorf("a pause planned a second later differs: %v", d)
	}
	pc := &PlanChanged{Plan: &Plan{Request: Request{Key: model.Key{Engine: model.EngineArgoCD, Namespace: "ns", Name: "web"}}, ResourceVersion: "9"}}
	var r *Refusal
	if !errors.As(error(pc), &r) || !strings.Contains(r.Reason, "nothing written") {
		t.Errorf("a changed plan must read as a refusal: %v", r)
	}
}
