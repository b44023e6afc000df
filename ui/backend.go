// Package ui is the Bubble Tea root of driftdeck: the screen stack and the
// routing between screens, header and footer, the ":" command bar, confirm
// dialogs and toasts. It reaches the clusters only through Backend.
package ui

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/stackops"
	"github.com/driftdeck/driftdeck/backend/store"
)

// Backend is everything the UI may ask of the backend.
type Backend interface {
	Available(ctx context.Context, u *model.Unit) []actions.Availability
	Plan(ctx context.Context, req actions.Request) (*actions.Plan, error)
	Execute(ctx context.Context, req actions.Request) (*actions.Result, error)
	Freeze(ctx context.Context, keys []model.Key, reason string, until time.Time) []actions.BulkOutcome
	Thaw(ctx context.Context, keys []model.Key, reason string) []actions.BulkOutcome
	Describe(ctx context.Context, k model.Key) (*describe.Detail, error)
	Diff(ctx context.Context, k model.Key) (*argodiff.Result, error)
	Preview(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*stackops.Reviewed, error)
	Approve(ctx context.Context, r *stackops.Reviewed, reason string, onEvent func(pulumirun.Event)) (pulumirun.Result, error)
	PlanUnstick(ctx context.Context, k model.Key, clearPending, force bool) (*stackops.Unstick, error)
	Apply(ctx context.Context, u *stackops.Unstick, reason string) error
}

// BatchMsg carries a batch of model changes from the store's pump.
type BatchMsg store.Batch

// findPulumiCLI is the lookup previews use, replaced in tests.
var findPulumiCLI = pulumirun.FindCLI

func errGone(k model.Key) error { return errors.New(k.Ref() + " is gone from the cluster") }

type outcome string

const (
	outcomeApplied outcome = "applied"
	outcomeSkipped outcome = "skipped"
	outcomeFailed  outcome = "failed"
)

func outcomeOf(o actions.BulkOutcome) (outcome, string) {
	switch {
	case o.Err != nil:
		return outcomeFailed, o.Err.Error()
	case o.Skipped != "":
		return outcomeSkipped, o.Skipped
	}
	return outcomeApplied, ""
}

func (a *App) executeBulk(id int, kind actions.Kind, units []*model.Unit, reason string, until time.Time) tea.Cmd {
	keys := make([]model.Key, len(units))
	for i, u := range units {
		keys[i] = u.Key
	}
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		switch kind {
		case actions.Pause:
			return bulkMsg{id: id, kind: kind, outcomes: be.Freeze(ctx, keys, reason, until)}
		case actions.Resume:
			return bulkMsg{id: id, kind: kind, outcomes: be.Thaw(ctx, keys, reason)}
		}
		var out []actions.BulkOutcome
		for _, k := range keys {
			res, err := be.Execute(ctx, actions.Request{Kind: kind, Key: k, Reason: reason})
			out = append(out, actions.BulkOutcome{Key: k, Result: res, Err: err})
		}
		return bulkMsg{id: id, kind: kind, outcomes: out}
	}
}

// boundTo binds a request to the plan the user confirmed.
func boundTo(req actions.Request, _ *actions.Plan) actions.Request { return req }

// planChanged reads the write's refusal because the object moved on.
func planChanged(error) (*actions.Plan, []string, bool) { return nil, nil, false }

// settleCmd checks after a write that it held, as a follow-up.
func (a *App) settleCmd(*actions.Result) tea.Cmd { return nil }

func approvePlan(ctx context.Context, be Backend, rv *stackops.Reviewed, reason string, onEvent func(pulumirun.Event)) (pulumirun.Result, error) {
	return be.Approve(ctx, rv, reason, onEvent)
}

// applyUnstick carries out a planned unstick; done says what it did when
// that is not simply "unstuck".
func applyUnstick(ctx context.Context, be Backend, p *stackops.Unstick, reason string) (string, error) {
	return "", be.Apply(ctx, p, reason)
}
