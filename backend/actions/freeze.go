package actions

import (
	"context"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// BulkOutcome is what happened to one unit of a bulk action.
type BulkOutcome struct {
	Key    model.Key
	Result *Result
	// Skipped is set when the unit was left alone on purpose (nothing to
	// pause, already paused); Err when the action failed or was refused.
	Skipped string
	Err     error
}

// Freeze pauses many units for an incident: one reason (required) and one
// optional expiry for all. Units with nothing to pause are skipped, with why.
func (e *Executor) Freeze(ctx context.Context, keys []model.Key, reason string, until time.Time) []BulkOutcome {
	return e.bulk(ctx, keys, func(k model.Key) Request {
		return Request{Kind: Pause, Key: k, Reason: reason, Until: until}
	})
}

// Thaw resumes many units, restoring each one's recorded state, and says which
// it could not.
func (e *Executor) Thaw(ctx context.Context, keys []model.Key, reason string) []BulkOutcome {
	return e.bulk(ctx, keys, func(k model.Key) Request { return Request{Kind: Resume, Key: k, Reason: reason} })
}

func (e *Executor) bulk(ctx context.Context, keys []model.Key, mk func(model.Key) Request) []BulkOutcome {
	out := make([]BulkOutcome, 0, len(keys))
	for _, k := range keys {
		o := BulkOutcome{Key: k}
		if len(KindsFor(k.Engine)) == 0 {
			o.Skipped = "no actions for " + string(k.Engine) + " units"
			out = append(out, o)
			continue
		}
		res, err := e.Execute(ctx, mk(k))
		o.Result = res
		if err != nil {
			if r, ok := err.(*Refusal); ok && r.NothingToDo {
				o.Skipped = r.Reason
			} else {
				o.Err = err
			}
		}
		out = append(out, o)
	}
	return out
}
