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

// Bulk does one action on many units, each through Execute (so each is
// guarded, audited and announced on its own), and says per unit whether it
// was applied, skipped (with why) or failed.
func (e *Executor) Bulk(ctx context.Context, r BulkRequest) []BulkOutcome {
	spec, known := SpecOf(r.Kind)
	out := make([]BulkOutcome, 0, len(r.Keys))
	for _, k := range r.Keys {
		o := BulkOutcome{Key: k, Outcome: OutcomeSkipped}
		switch {
		case !known || !spec.Bulkable:
			o.Why = fmt.Sprintf("%s is not done in bulk", r.Kind)
		case !spec.Knows(k.Engine):
			o.Why = fmt.Sprintf("%s is not possible for %s units", r.Kind, k.Engine)
		default:
			o.Result, o.Err = e.Execute(ctx, Request{Kind: r.Kind, Key: k, Reason: r.Reason, Until: r.Until, Prune: r.Prune, SyncChoices: r.SyncChoices, WithSource: r.WithSource})
			var ref *Refusal
			switch {
			case o.Err == nil && r.Kind == Pause && o.Result != nil && o.Result.MayRevert != "":
				// Its owner's reconcile, started by this write, is over
				// before the next unit is written: one still reading the
				// ApplicationSet from before the next unit's entry would
				// revert that unit's pause. A revert all the same is a failure.
				if reverted := e.Settled(ctx, o.Result); len(reverted) > 0 {
					o.Outcome, o.Why = OutcomeFailed, strings.Join(reverted, "; ")
				} else {
					o.Outcome = OutcomeApplied
				}
			case o.Err == nil:
				o.Outcome = OutcomeApplied
			case errors.As(o.Err, &ref) && ref.NothingToDo:
				o.Why, o.Err = ref.Reason, nil
			case writeguard.IsUnknown(o.Err):
				o.Outcome, o.Why = OutcomeUnknown, o.Err.Error()
			default:
				o.Outcome, o.Why = OutcomeFailed, o.Err.Error()
			}
		}
		out = append(out, o)
	}
	return out
}
