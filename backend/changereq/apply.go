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
	// leftAlone are the root modules' requests said to be left to another
	// agent, so that each is said once.
	leftAlone map[string]bool
}

// RootSender applies an approved request of a root module: it plans the
// module again and applies that plan only when it is the one stored
// (*RootChanged when not, nothing applied).
type RootSender interface {
	Reads(k model.Key) bool
	Send(ctx context.Context, cr *ChangeRequest, approval string) (summary string, err error)
}

// claimTimeout is how long a request may stay Applying: past it, the agent
// that claimed it is taken to have stopped before recording the outcome.
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

// RootChanged is a root module whose plan now is not the one stored in its
// request: nothing was applied.
type RootChanged struct{ What []string }

func (e *RootChanged) Error() string {
	return "the module's plan is not the one approved: " + strings.Join(e.What, "; ")
}

// leaveAlone says once that an approved request of a root module this
// agent does not read waits for one that does.
func (a *Applier) leaveAlone(cr *ChangeRequest, k model.Key) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.leftAlone[cr.Ref()] {
		return
	}
	if a.leftAlone == nil {
		a.leftAlone = map[string]bool{}
	}
	a.leftAlone[cr.Ref()] = true
	a.logf("change request %s in context %s is approved for %s, a root module this agent does not read (config roots): left to an agent that does", cr.Ref(), a.Context, k.Ref())
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
	st, err := a.send(ctx, cr, req)
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

// send applies the request: its stored patch, or a root module's plan.
func (a *Applier) send(ctx context.Context, cr *ChangeRequest, req actions.Request) (Status, error) {
	if req.Key.Engine == model.EngineRoot {
		summary, err := a.Roots.Send(ctx, cr, req.Approval)
		return Status{Phase: Applied, Why: "applied as approved: " + summary}, err
	}
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
