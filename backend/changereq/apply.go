package changereq

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// Applier is the agent's duty for one context while it leads it: close
// the requests that are decided, and send each approved one's stored plan,
// once.
type Applier struct {
	Context string
	// Namespace limits the requests read ("": every namespace).
	Namespace string
	Exec      *actions.Executor
	Now       func() time.Time
	// Outcome is told each request the pass closed (Applied, Stale ...).
	Outcome func(Phase)
	Logf    func(format string, args ...any)
	// Roots applies the requests of the root modules the agent reads; a
	// request of another root module is left to an agent that reads it.
	Roots RootSender

	mu     sync.Mutex
	silent string // the last listing error logged, so it is logged once
	roots  rootWork
}

// claimTimeout is how long a request may stay Applying without its claim
// renewed: past it, the agent that claimed it is taken to have stopped
// before recording the outcome.
const claimTimeout = 2 * time.Minute

func (a *Applier) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *Applier) logf(format string, args ...any) {
	if a.Logf != nil {
		a.Logf(format, args...)
	}
}

// Pass looks at every request once.
func (a *Applier) Pass(ctx context.Context) {
	c, ok := a.Exec.Cluster(a.Context)
	if !ok {
		return
	}
	list, err := List(ctx, c.Dynamic, a.Namespace)
	if err != nil {
		a.listFailed(err)
		return
	}
	a.listFailed(nil)
	for _, cr := range list {
		if ctx.Err() != nil {
			return
		}
		if err := a.act(ctx, cr); err != nil {
			a.logf("change request %s in context %s: %v", cr.Ref(), a.Context, err)
		}
	}
}

// listFailed logs a listing error once until it changes, and its end.
func (a *Applier) listFailed(err error) {
	msg := ""
	if err != nil && !apierrors.IsNotFound(err) {
		msg = err.Error()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case msg == a.silent:
	case msg == "":
		a.logf("change requests of context %s are read again", a.Context)
	default:
		a.logf("cannot read the change requests of context %s (none is applied until it can): %v", a.Context, err)
	}
	a.silent = msg
}

func (a *Applier) act(ctx context.Context, cr *ChangeRequest) error {
	if a.roots.isRunning(cr.Ref()) {
		return nil // this agent applies it now
	}
	now := a.now()
	if cr.Status.Phase == Applying {
		if cr.Status.ClaimedAt != nil && now.Sub(*cr.Status.ClaimedAt) > claimTimeout {
			return a.close(ctx, cr, Status{Phase: Failed, Why: "the agent applying it (" + cr.Status.Agent + ") stopped before recording the outcome: look at the unit, the write may have been made; ask again if not"})
		}
		return nil
	}
	phase, why := cr.State(now)
	switch {
	case phase.Closed():
		if cr.Status.Phase == phase {
			return nil
		}
		return a.close(ctx, cr, Status{Phase: phase, Why: why})
	case phase == Pending:
		if cr.Status.Phase == Pending && cr.Status.Why == why {
			return nil
		}
		_, err := a.writeStatus(ctx, cr, Status{Phase: Pending, Why: why})
		return err
	}
	if k := cr.Key(a.Context); k.Engine == model.EngineRoot && (a.Roots == nil || !a.Roots.Reads(k)) {
		a.leaveAlone(cr, k)
		return nil
	}
	return a.apply(ctx, cr)
}

// apply claims the request (a status write bound to the version read: of
// several agents, one wins), sends its stored plan and records the outcome.
func (a *Applier) apply(ctx context.Context, cr *ChangeRequest) error {
	claimed := a.now().UTC().Truncate(time.Second)
	cr, err := a.writeStatus(ctx, cr, Status{Phase: Applying, Why: "approved: applying", ClaimedAt: &claimed})
	switch {
	case err != nil && actions.PreconditionFailed(err):
		return nil // another agent, or a review, came first: next pass
	case err != nil:
		return err
	}
	req := cr.request(a.Context)
	req.Approval = approval(cr)
	if req.Key.Engine == model.EngineRoot {
		a.applyRoot(ctx, cr, req, claimed)
		return nil
	}
	st, err := a.sendStored(ctx, cr, req)
	return a.outcome(ctx, cr, req, claimed, st, err)
}

// sendStored sends the request's stored patch.
func (a *Applier) sendStored(ctx context.Context, cr *ChangeRequest, req actions.Request) (Status, error) {
	res, err := a.Exec.SendStored(ctx, req, cr.Spec.Plan, cr.Spec.Unit.UID)
	if err != nil {
		return Status{}, err
	}
	st := Status{Phase: Applied, ResourceVersion: res.ResourceVersion, Why: "applied as approved: " + res.Plan.Summary}
	if len(res.Warnings) > 0 {
		st.Why += " (warnings: " + strings.Join(res.Warnings, "; ") + ")"
	}
	return st, nil
}

// outcome records how sending the request went.
func (a *Applier) outcome(ctx context.Context, cr *ChangeRequest, req actions.Request, claimed time.Time, st Status, err error) error {
	var changed *actions.PlanChanged
	var rootChanged *RootChanged
	switch {
	case err == nil:
		at := a.now().UTC().Truncate(time.Second)
		st.AppliedAt = &at
		a.logf("applied change request %s to %s: %s", cr.Ref(), req.Key, req.Approval)
	case errors.As(err, &changed):
		st = Status{Phase: Stale, Why: "nothing written: " + req.Key.Ref() + " changed since the request: " + strings.Join(changed.Changes, "; ")}
	case errors.As(err, &rootChanged):
		st = Status{Phase: Stale, Why: "nothing applied: " + req.Key.Ref() + " changed since the request: " + strings.Join(rootChanged.What, "; ")}
	default:
		st = Status{Phase: Failed, Why: "nothing written: " + err.Error()}
	}
	st.ClaimedAt = &claimed
	return a.close(ctx, cr, st)
}

// approval names the request, its requester and every approver with their
// reasons, for the unit's Event and the audit line.
func approval(cr *ChangeRequest) string {
	var by []string
	for _, r := range cr.Approvers() {
		by = append(by, r.User+" ("+strconv.Quote(r.Reason)+")")
	}
	return "change request " + cr.Ref() + " asked by " + cr.Spec.Requester + ", approved by " + strings.Join(by, ", ")
}

func (a *Applier) close(ctx context.Context, cr *ChangeRequest, st Status) error {
	if _, err := a.writeStatus(ctx, cr, st); err != nil {
		return err
	}
	if a.Outcome != nil {
		a.Outcome(st.Phase)
	}
	if st.Phase != Applied {
		a.logf("change request %s: %s: %s", cr.Ref(), strings.ToLower(string(st.Phase)), st.Why)
	}
	return nil
}

// writeStatus writes the request's status, bound to the version read.
func (a *Applier) writeStatus(ctx context.Context, cr *ChangeRequest, st Status) (*ChangeRequest, error) {
	c, _ := a.Exec.Cluster(a.Context)
	if st.Agent == "" {
		id, err := c.Access.Identity(ctx)
		if err != nil {
			return nil, err
		}
		st.Agent = id
	}
	body, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/resourceVersion", "value": cr.ResourceVersion},
		{"op": "add", "path": "/status", "value": st},
	})
	if err != nil {
		return nil, err
	}
	out, err := c.Dynamic.Resource(GVR).Namespace(cr.Namespace).Patch(ctx, cr.Name, types.JSONPatchType, body, metav1.PatchOptions{FieldManager: "driftdeck-agent"}, "status")
	if err != nil {
		return nil, err
	}
	return FromObject(out.Object)
}
