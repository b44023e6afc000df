package actions

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// BulkRequest is one action on many units: one reason and one expiry for all.
type BulkRequest struct {
	Kind   Kind
	Keys   []model.Key
	Reason string
	Until  time.Time
	Prune  bool
	SyncChoices
	// WithSource: a Flux or Terraform refresh requests each unit's source first.
	WithSource bool
	// Shown are the plans shown of some units, as Plan made them for this
	// request: each is sent as it is (Send), and a unit that changed since
	// is not written. A unit without one, or whose ApplicationSet entry is
	// written together with its siblings' first (which changes its plan),
	// is planned when it is written.
	Shown map[model.Key]*Plan
}

// madeFor tells whether a shown plan was made for the request a bulk makes
// of its unit (not one with an older reason or expiry).
func (p *Plan) madeFor(r Request) bool {
	q := p.Request
	return q.Kind == r.Kind && q.Key == r.Key && q.Reason == r.Reason && q.Until.Equal(r.Until) &&
		q.Prune == r.Prune && q.SyncChoices == r.SyncChoices && q.WithSource == r.WithSource
}

// Outcome is what became of one unit of a bulk action.
type Outcome string

const (
	OutcomeApplied Outcome = "applied"
	// OutcomeSkipped: left alone on purpose, nothing to do or not possible
	// for the unit's engine. Never a failure.
	OutcomeSkipped Outcome = "skipped"
	OutcomeFailed  Outcome = "failed"
	// OutcomeUnknown: the write's answer was lost and it could not be read
	// back (writeguard.Unknown): it may or may not have been applied.
	OutcomeUnknown Outcome = "unknown"
)

// BulkOutcome is what happened to one unit of a bulk action.
type BulkOutcome struct {
	Key     model.Key
	Outcome Outcome
	// Why: skipped, why it was left alone; failed, the error.
	Why    string
	Result *Result
	Err    error
}

// Bulk does one action on many units, each through Send or Execute (so
// each is guarded, audited and announced on its own), and says per unit whether it
// was applied, skipped (with why) or failed. A pause first writes the
// ignore entries of all children of one ApplicationSet in one patch
// (bulk_hold.go), then pauses the units, then waits the settle time once
// and reads back each unit an owner may revert: a revert is a failure.
func (e *Executor) Bulk(ctx context.Context, r BulkRequest) []BulkOutcome {
	spec, known := SpecOf(r.Kind)
	reqs := bulkRequests(r)
	out := make([]BulkOutcome, len(r.Keys))
	var todo []int
	for i, k := range r.Keys {
		out[i] = BulkOutcome{Key: k, Outcome: OutcomeSkipped}
		switch {
		case !known || !spec.Bulkable:
			out[i].Why = fmt.Sprintf("%s is not done in bulk", r.Kind)
		case !spec.Knows(k.Engine):
			out[i].Why = fmt.Sprintf("%s is not possible for %s units", r.Kind, k.Engine)
		default:
			todo = append(todo, i)
		}
	}
	groups := e.groupSiblingHolds(ctx, r, reqs, todo)
	for _, g := range groups {
		if err := e.writeSiblingHolds(ctx, r, g); err != nil {
			for _, i := range g.units {
				out[i].Outcome, out[i].Err = OutcomeFailed, err
				out[i].Why = "not paused: its ApplicationSet's ignore entries could not be written first: " + err.Error()
			}
			continue
		}
		for _, i := range g.units {
			reqs[i].preHeld = g.preHeld(i)
		}
	}
	mayRevert := false
	for _, i := range todo {
		o := &out[i]
		if o.Outcome == OutcomeFailed {
			continue
		}
		if p := r.Shown[reqs[i].Key]; p != nil && p.madeFor(reqs[i]) && reqs[i].preHeld == nil {
			o.Result, o.Err = e.Send(ctx, p)
		} else {
			o.Result, o.Err = e.Execute(ctx, reqs[i])
		}
		var ref *Refusal
		var changed *PlanChanged
		switch {
		case errors.As(o.Err, &changed):
			o.Outcome, o.Why = OutcomeFailed, changed.Error()+": "+strings.Join(changed.Changes, "; ")
		case o.Err == nil:
			o.Outcome = OutcomeApplied
			mayRevert = mayRevert || o.Result != nil && o.Result.MayRevert != ""
		case errors.As(o.Err, &ref) && ref.NothingToDo:
			o.Why, o.Err = ref.Reason, nil
		case writeguard.IsUnknown(o.Err):
			o.Outcome, o.Why = OutcomeUnknown, o.Err.Error()
		default:
			o.Outcome, o.Why = OutcomeFailed, o.Err.Error()
		}
	}
	if r.Kind == Pause && mayRevert && e.wait(ctx) {
		for _, i := range todo {
			o := &out[i]
			if o.Outcome != OutcomeApplied || o.Result == nil || o.Result.MayRevert == "" {
				continue
			}
			if reverted := e.reverted(ctx, o.Result); len(reverted) > 0 {
				o.Outcome, o.Why = OutcomeFailed, strings.Join(reverted, "; ")
			}
			o.Result.settled = true
		}
	}
	for _, g := range groups {
		var notHeld []int
		for _, i := range g.units {
			if reqs[i].preHeld != nil && (out[i].Outcome == OutcomeFailed || out[i].Outcome == OutcomeSkipped) {
				notHeld = append(notHeld, i)
			}
		}
		if err := e.releaseSiblingHolds(ctx, r, g, notHeld); err != nil {
			for _, i := range notHeld {
				out[i].Why += fmt.Sprintf("; and its ignoreApplicationDifferences entry on %s could not be taken back (remove the entry for %s by hand): %v", g.key.Ref(), out[i].Key.Name, err)
			}
		}
	}
	return out
}
