package ui

import (
	"context"
	"errors"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/changereq"
)

// fakeRequests are the change requests the fake backend holds, and the
// reviews it was asked to write.
type fakeRequests struct {
	requests []changereq.Listed
	reviewed []string // "<ref> <decision> <reason>"
	asked    []*actions.Plan
}

func (f *fakeBackend) Ask(_ context.Context, p *actions.Plan) (*changereq.ChangeRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs.asked = append(f.reqs.asked, p)
	return &changereq.ChangeRequest{Namespace: p.Request.Key.Namespace, Name: string(p.Request.Kind) + "-" + p.Request.Key.Name + "-x1",
		Spec: changereq.Spec{ApprovalsRequired: 1}}, nil
}

func (f *fakeBackend) ChangeRequests() []changereq.Listed {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reqs.requests
}

func (f *fakeBackend) Review(_ context.Context, l changereq.Listed, decision, reason string) (*changereq.ChangeRequest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs.reviewed = append(f.reqs.reviewed, l.Ref()+" "+decision+" "+reason)
	if decision == changereq.Approve && l.Spec.Requester == "oncall@example.com" {
		return nil, errors.New(`ValidatingAdmissionPolicy 'driftdeck-change-requests' denied request: oncall@example.com asked for this change and may not review it`)
	}
	cr := *l.ChangeRequest
	cr.Reviews = append(cr.Reviews, changereq.Review{User: "oncall@example.com", Decision: decision, Reason: reason})
	return &cr, nil
}
