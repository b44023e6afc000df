package ui

import (
	"context"
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// fakeBackend answers the UI's questions from fixed data, for model-level
// tests of the screens; the real backend is tested against real clusters.
type fakeBackend struct {
	executed []actions.Request
}

func (f *fakeBackend) Available(_ context.Context, u *model.Unit) []actions.Availability {
	var out []actions.Availability
	for _, k := range actions.KindsFor(u.Key.Engine) {
		a := actions.Availability{Kind: k, Enabled: true}
		if k == actions.Terminate {
			a.Enabled, a.WhyNot = false, "no running operation"
		}
		out = append(out, a)
	}
	return out
}

func (f *fakeBackend) Plan(_ context.Context, req actions.Request) (*actions.Plan, error) {
	return &actions.Plan{
		Request: req,
		Summary: fmt.Sprintf("pause auto-sync and self-heal of %s", req.Key.Ref()),
		Changes: []string{
			"spec.syncPolicy.automated.enabled: (unset, means true) → false",
			"metadata.annotations.driftdeck.io/paused-by: oncall@example.com",
			`metadata.annotations.driftdeck.io/paused-previous: {"prune":true,"selfHeal":true}`,
		},
		Warnings:        []string{"ApplicationSet/storefront manages this object and may revert spec edits; driftdeck re-reads after the write and reports a revert"},
		Patch:           make([]actions.Op, 8),
		ResourceVersion: "4711",
	}, nil
}

func (f *fakeBackend) Execute(_ context.Context, req actions.Request) (*actions.Result, error) {
	f.executed = append(f.executed, req)
	p, _ := f.Plan(context.Background(), req)
	return &actions.Result{Plan: p, Actor: "oncall@example.com", Verified: true}, nil
}

func (f *fakeBackend) Bulk(_ context.Context, r actions.BulkRequest) []actions.BulkOutcome {
	var out []actions.BulkOutcome
	for i, k := range r.Keys {
		o := actions.BulkOutcome{Key: k, Outcome: actions.OutcomeApplied}
		if i == 0 {
			o.Outcome, o.Why = actions.OutcomeSkipped, "manual sync policy: there is no automation to pause"
		} else {
			o.Result = &actions.Result{Verified: true}
		}
		out = append(out, o)
	}
	return out
}

func (f *fakeBackend) Describe(_ context.Context, k model.Key) (*describe.Detail, error) {
	return &describe.Detail{
		Key:  k,
		YAML: "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: " + k.Name + "\n",
		Events: []describe.Event{
			{Type: "Normal", Reason: "OperationStarted", Message: "Initiated automated sync to 'a1b2c3d'", Source: "argocd-application-controller", Count: 1, Last: fixedNow.Add(-26 * time.Minute)},
		},
		History: []describe.HistoryEntry{
			{ID: 12, Revision: "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", DeployedAt: fixedNow.Add(-26 * time.Hour), InitiatedBy: "automated"},
			{ID: 11, Revision: "0f1e2d3c4b5a69788796a5b4c3d2e1f000112233", DeployedAt: fixedNow.Add(-50 * time.Hour), InitiatedBy: "alice@example.com"},
		},
		Resources: []describe.Resource{
			{Group: "apps", Kind: "Deployment", Namespace: "search", Name: "indexer", Status: "OutOfSync", Health: "Progressing"},
			{Kind: "Service", Namespace: "search", Name: "indexer", Status: "Synced", Health: "Healthy"},
		},
	}, nil
}

func (f *fakeBackend) Diff(_ context.Context, k model.Key) (*argodiff.Result, error) {
	return nil, fmt.Errorf("no diff source in this test")
}

func (f *fakeBackend) Preview(context.Context, model.Key, func(pulumirun.Event)) (*stackops.Reviewed, error) {
	return nil, fmt.Errorf("no pulumi in this test")
}

func (f *fakeBackend) Approve(context.Context, *stackops.Reviewed, string, func(pulumirun.Event)) (pulumirun.Result, *stackops.Done, error) {
	return pulumirun.Result{}, nil, fmt.Errorf("no pulumi in this test")
}

func (f *fakeBackend) PlanUnstick(context.Context, model.Key, bool, bool) (*stackops.Unstick, error) {
	return nil, fmt.Errorf("no state backend in this test")
}

func (f *fakeBackend) Apply(context.Context, *stackops.Unstick, string) (*stackops.Done, error) {
	return nil, fmt.Errorf("no state backend in this test")
}
