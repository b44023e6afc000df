package actions

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// Send writes a plan that was shown, as it is: the bytes of its patch, with
// the precondition that binds it to the version it was planned from. The
// planner does not run again. When the object moved on, nothing is written:
// the plan is made again on the object as it is now, only to judge. If it
// writes and checks exactly what the shown plan does (a controller updated
// a status the plan neither writes nor reads), the shown plan is sent again,
// bound to the version now read; otherwise Send returns *PlanChanged with
// the new plan, to be shown and confirmed in turn.
func (e *Executor) Send(ctx context.Context, p *Plan) (*Result, error) {
	if p == nil || !p.bound() {
		return nil, errors.New("only a plan made by Plan can be sent: it is bound to the version it was made from")
	}
	return e.guarded(ctx, p.Request, func(w *writeguard.Write) (*Result, error) {
		return e.sendShown(ctx, w, p, 0)
	})
}

// Execute plans the request on a fresh read and writes that plan, for a
// request nobody reviewed (the agent, a policy, --yes, a refresh). It asked
// for whatever the object's state allows at the time: when another writer
// came in between the read and the write, it is planned again on a fresh
// read, a few times, and then refused.
func (e *Executor) Execute(ctx context.Context, req Request) (*Result, error) {
	return e.guarded(ctx, req, func(w *writeguard.Write) (*Result, error) {
		return e.planAndSend(ctx, w, req, 0)
	})
}

// guarded runs a write of the request through the write guard (read-only,
// reason, actor, permission, audit, Event).
func (e *Executor) guarded(ctx context.Context, req Request, write func(*writeguard.Write) (*Result, error)) (*Result, error) {
	gvr, _ := engines.Resource(req.Key.Engine)
	a := writeguard.Attempt{Key: req.Key, Action: string(req.Kind), Reason: req.Reason, ReasonRequired: Destructive(req.Kind), Resource: gvr, Approval: req.Approval}
	if api := e.argoAPI(req.Key); api != nil {
		a.Authority = &argoAuthority{api: api, kind: req.Kind}
	}
	var res *Result
	w, err := e.guard().Do(ctx, a, func(w *writeguard.Write) error {
		var err error
		res, err = write(w)
		return err
	})
	if res != nil {
		res.Warnings = append(res.Warnings, w.Warnings...)
	}
	return res, err
}

func (e *Executor) guard() *writeguard.Guard {
	return &writeguard.Guard{Cluster: e.Cluster, Audit: e.Audit, ReadOnly: e.ReadOnly, DryRun: e.DryRun, Now: e.Now}
}

// maxRebinds bounds how often a shown plan is bound again to a newer
// version of an object whose status keeps moving under it, and how often an
// unreviewed request is planned again after another writer came in between.
const maxRebinds = 3

func (e *Executor) sendShown(ctx context.Context, w *writeguard.Write, p *Plan, rebinds int) (*Result, error) {
	res, err := e.send(ctx, w, p)
	var m *moved
	if !errors.As(err, &m) {
		return res, err
	}
	obj, err := e.get(ctx, w.Cluster, p.Request.Key)
	if err != nil {
		return nil, err
	}
	// Judged at the shown plan's time, so that only what the object's change
	// did shows (not the clock).
	// And as whom it was made: a stored plan is sent by another identity.
	env := &planEnv{ctx: ctx, cluster: w.Cluster, actor: orWord(p.actor, w.Actor), now: p.at, exec: e, api: e.argoAPI(p.Request.Key), assumed: maps.Clone(p.assumed)}
	now, err := e.plan(env, obj, p.Request, true)
	if err != nil {
		return nil, err
	}
	shown, again, next := p, now, p.rebound(now.ResourceVersion)
	if m.sourcesRequested {
		// The sources hold the requests just written: they are not asked
		// twice, and only the unit's own write is judged.
		shown, again = p.withoutSources(), now.withoutSources()
		next.before = nil
	}
	if changes := PlanDifferences(shown, again); len(changes) > 0 {
		return nil, &PlanChanged{Plan: now, Changes: changes}
	}
	if rebinds == maxRebinds {
		return nil, &PlanChanged{Plan: now, Changes: []string{fmt.Sprintf("%s kept changing while driftdeck wrote to it (resourceVersion %s → %s): review the plan again", p.Request.Key.Ref(), p.ResourceVersion, now.ResourceVersion)}}
	}
	return e.sendShown(ctx, w, next, rebinds+1)
}

func (e *Executor) planAndSend(ctx context.Context, w *writeguard.Write, req Request, replans int) (*Result, error) {
	obj, err := e.get(ctx, w.Cluster, req.Key)
	if err != nil {
		return nil, err
	}
	env := &planEnv{ctx: ctx, cluster: w.Cluster, actor: w.Actor, now: e.now(), exec: e, api: e.argoAPI(req.Key)}
	p, err := e.plan(env, obj, req, false)
	if err != nil {
		return nil, err
	}
	res, err := e.send(ctx, w, p)
	var m *moved
	switch {
	case !errors.As(err, &m):
		return res, err
	case replans < maxRebinds && !m.sourcesRequested:
		return e.planAndSend(ctx, w, req, replans+1)
	}
	// An unreviewed request with requests to its sources already sent is not
	// planned again: they would be sent twice.
	return nil, &Refusal{Reason: fmt.Sprintf("%s changed while driftdeck wrote to it (a precondition of the patch failed: %v): nothing written; look again and retry", req.Key.Ref(), m.err)}
}

// withoutSources is the plan without its requests to the unit's sources.
func (p *Plan) withoutSources() *Plan {
	q := *p
	q.before, q.Changes = nil, nil
	for _, c := range p.Changes {
		if !slices.ContainsFunc(p.before, func(w sideWrite) bool { return w.change == c }) {
			q.Changes = append(q.Changes, c)
		}
	}
	return &q
}

// moved is a write refused because a precondition failed: the unit (or the
// ApplicationSet a pause writes first) is not as the plan read it, and the
// unit was not written.
type moved struct {
	err error
	// sourcesRequested: the plan's requests to the unit's sources were
	// written before the unit's patch was refused.
	sourcesRequested bool
}

func (m *moved) Error() string { return m.err.Error() }

// send writes a plan: the requests to its sources, the ApplicationSet entry
// a pause adds first, then the unit's patch, verified on the object the
// server returns. A failed precondition is *moved, with nothing written to
// the unit (an ApplicationSet entry written for it is taken back).
func (e *Executor) send(ctx context.Context, w *writeguard.Write, p *Plan) (*Result, error) {
	c, req := w.Cluster, p.Request
	if api := e.argoAPI(req.Key); api != nil {
		return e.sendThroughArgo(ctx, w, api, p)
	}
	w.Entry.Previous = p.Previous
	body, err := patch(p.Patch).bytes()
	if err != nil {
		return nil, err
	}
	w.Entry.Patch = body
	for _, sw := range p.before {
		w.Entry.Also = append(w.Entry.Also, sw.change)
	}
	opts := w.PatchOptions(orWord(p.fieldManager, "driftdeck"))
	if err := writeBefore(ctx, c, p, opts, e.now()); err != nil {
		return nil, err
	}
	var held map[string]any
	if h := p.hold; h != nil && h.first && len(h.patch) > 0 {
		held, err = e.writeHold(ctx, req, p, h.patch, string(req.Kind))
		switch {
		case err != nil && PreconditionFailed(err):
			return nil, &moved{err: holdError(h, err), sourcesRequested: len(p.before) > 0}
		case err != nil:
			return nil, holdError(h, err)
		}
		if _, kept := undoHold(held, h); !kept {
			return nil, fmt.Errorf("%s does not keep the ignoreApplicationDifferences entry driftdeck wrote (its CRD pruned it?): the Application was not paused", h.key.Ref())
		}
	}
	out, err := c.Dynamic.Resource(p.gvr).Namespace(req.Key.Namespace).Patch(ctx, req.Key.Name, types.JSONPatchType, body, opts, subresources(p)...)
	if err != nil && held != nil && !w.DryRun {
		err = e.undoHold(ctx, req, p, held, err)
	}
	switch {
	case err != nil && PreconditionFailed(err):
		return nil, &moved{err: err, sourcesRequested: len(p.before) > 0}
	case err != nil && answerLost(err):
		// The write may have landed: read it back rather than guess.
		after, evidence, lerr := e.readBackLost(ctx, c, req, p, err)
		if lerr != nil {
			return nil, lerr
		}
		res := e.finish(ctx, w, c, req, p, after)
		res.Warnings = append(res.Warnings, fmt.Sprintf("the connection dropped before the cluster answered (%v); read back %s, %s: it was applied", err, req.Key.Ref(), evidence))
		return res, nil
	case err != nil:
		return nil, explainWriteError(req, err)
	}
	return e.finish(ctx, w, c, req, p, out.Object), nil
}
