package changereq

import (
	"context"
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/kube"
)

// Desk is what the workbench does with change requests: list those the
// live model holds, and review one under the user's identity.
type Desk struct {
	Cluster          func(context string) (*kube.Cluster, bool)
	Index            *Index
	ReadOnly, DryRun bool
}

// ChangeRequests lists the requests of every context, oldest first.
func (d *Desk) ChangeRequests() []Listed { return d.Index.All() }

// Review adds the user's review to the request as shown: approve or
// reject, or, on their own request, cancel. The API server decides whether
// the user may.
func (d *Desk) Review(ctx context.Context, l Listed, decision, reason string) (*ChangeRequest, error) {
	if d.ReadOnly {
		return nil, actions.ErrReadOnly
	}
	c, ok := d.Cluster(l.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", l.Context)
	}
	id, err := c.Access.Identity(ctx)
	if err != nil {
		return nil, err
	}
	if id == l.Spec.Requester && decision == Reject {
		decision = Cancel
	}
	if d.DryRun {
		return nil, &actions.Refusal{Reason: "dry run: no review written"}
	}
	return AddReview(ctx, c.Dynamic, l.ChangeRequest, Review{User: id, Decision: decision, Reason: reason}, time.Now())
}

// Ask stores a plan shown to the user in a new request, in their name,
// for one other person's approval within DefaultOpen.
func (d *Desk) Ask(ctx context.Context, p *actions.Plan) (*ChangeRequest, error) {
	if d.ReadOnly {
		return nil, actions.ErrReadOnly
	}
	c, ok := d.Cluster(p.Request.Key.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", p.Request.Key.Context)
	}
	id, err := c.Access.Identity(ctx)
	if err != nil {
		return nil, err
	}
	return Create(ctx, c.Dynamic, p, Ask{Requester: id, DryRun: d.DryRun}, time.Now())
}
