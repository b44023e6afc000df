package actions

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// Executor plans and executes actions against the clusters of a fleet.
type Executor struct {
	// Cluster finds a connected context by name.
	Cluster func(context string) (*kube.Cluster, bool)
	// Audit is the local audit log; nil writes none (tests).
	Audit    *audit.Log
	ReadOnly bool
	DryRun   bool
	// Settle is how long to wait before a second read of an object whose owner
	// (ApplicationSet, parent app) may revert the write. Zero skips it.
	Settle time.Duration
	Now    func() time.Time

	schema schemaCache
}

// planEnv is what a planner may use.
type planEnv struct {
	ctx     context.Context
	cluster *kube.Cluster
	actor   string
	now     time.Time
	exec    *Executor
}

func (env *planEnv) knowsEnabled() bool {
	known, ok := env.exec.schema.knows(env.ctx, env.cluster, "applications.argoproj.io", "v1alpha1",
		"spec", "syncPolicy", "automated", "enabled")
	// Unreadable CRD: assume the older schema. Removing the automated block
	// pauses on every generation; the annotation keeps what resume restores.
	return ok && known
}

// windows evaluates the sync windows of an app's AppProject, read fresh: it
// lives in Argo CD's control-plane namespace (status.controllerNamespace when
// the app is elsewhere). A project that cannot be read yields a warning.
func (env *planEnv) windows(u *model.Unit, app map[string]any) (argocd.Verdict, []string) {
	open := argocd.Verdict{AutoOK: true, ManualOK: true}
	ns := lookupString(app, "status", "controllerNamespace")
	if ns == "" {
		ns = u.Key.Namespace
	}
	proj, err := env.cluster.Dynamic.Resource(argocd.AppProjects).Namespace(ns).Get(env.ctx, orWord(u.Project, "default"), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return open, nil
	}
	if err != nil {
		return open, []string{"sync windows unknown: could not read AppProject " + u.Project + ": " + err.Error()}
	}
	return argocd.Evaluate(argocd.ReadWindows(proj.Object), u.Key.Name, u.Argo.DestNamespace, u.Argo.DestServer, u.Argo.DestName, env.now), nil
}

func (e *Executor) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

type planner func(env *planEnv, obj map[string]any, req Request) (*Plan, error)

func plannerFor(engine model.Engine, k Kind) (planner, error) {
	switch engine {
	case model.EngineArgoCD:
		switch k {
		case Pause, PauseSelfHeal:
			return planArgoPause, nil
		case Resume:
			return planArgoResume, nil
		case Sync, Approve:
			return planArgoSync, nil
		case Terminate:
			return planArgoTerminate, nil
		case Refresh, HardRefresh:
			return planArgoRefresh, nil
		case Rollback:
			return planArgoRollback, nil
		case ConfirmPrune:
			return planArgoConfirmPrune, nil
		}
	case model.EnginePulumi:
		switch k {
		case Retry:
			return planStackRetry, nil
		case Approve:
			return planStackApprove, nil
		case Pause:
			return planStackPause, nil
		case Resume:
			return planStackResume, nil
		}
	}
	return nil, refusef("%s cannot be done on a %s unit (it knows: %s)", k, engine, kindList(KindsFor(engine)))
}

func kindList(ks []Kind) string {
	var s []string
	for _, k := range ks {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// Plan reads the object fresh and computes exactly what the action would write.
func (e *Executor) Plan(ctx context.Context, req Request) (*Plan, error) {
	env, obj, err := e.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	return e.plan(env, obj, req)
}

func (e *Executor) prepare(ctx context.Context, req Request) (*planEnv, map[string]any, error) {
	c, ok := e.Cluster(req.Key.Context)
	if !ok {
		return nil, nil, fmt.Errorf("unknown context %q", req.Key.Context)
	}
	actor, err := c.Access.Identity(ctx)
	if err != nil {
		return nil, nil, err
	}
	env := &planEnv{ctx: ctx, cluster: c, actor: actor, now: e.now(), exec: e}
	obj, err := e.get(ctx, c, req.Key)
	return env, obj, err
}

func (e *Executor) get(ctx context.Context, c *kube.Cluster, k model.Key) (map[string]any, error) {
	gvr, ok := engines.Resource(k.Engine)
	if !ok {
		return nil, refusef("driftdeck has no actions for %s units yet", k.Engine)
	}
	obj, err := c.Dynamic.Resource(gvr).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, refusef("%s does not exist (any more)", k.Ref())
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	return obj.Object, nil
}

func (e *Executor) plan(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	pl, err := plannerFor(req.Key.Engine, req.Kind)
	if err != nil {
		return nil, err
	}
	p, err := pl(env, obj, req)
	if err != nil {
		return nil, err
	}
	p.Request = req
	p.ResourceVersion = lookupString(obj, "metadata", "resourceVersion")
	return p, nil
}

// maxAttempts bounds the re-read/re-plan loop when a precondition fails
// because somebody else wrote in between.
const maxAttempts = 4

// Execute does the action: read-only and permission checks, a fresh plan, the
// patch with its preconditions (re-planned from a new read when they fail),
// verification by reading back, an Event on the object and an audit line.
func (e *Executor) Execute(ctx context.Context, req Request) (*Result, error) {
	entry := audit.Entry{Time: e.now(), Context: req.Key.Context, Unit: req.Key.Ref(), Action: string(req.Kind), Reason: req.Reason, DryRun: e.DryRun}
	res, err := e.execute(ctx, req, &entry)
	switch {
	case err == nil:
		entry.Outcome = "done"
	case isRefusal(err):
		entry.Outcome, entry.Error = "refused", err.Error()
	default:
		entry.Outcome, entry.Error = "failed", err.Error()
	}
	if e.Audit != nil {
		if aerr := e.Audit.Append(entry); aerr != nil {
			if err == nil {
				res.Warnings = append(res.Warnings, aerr.Error())
			}
		}
	}
	return res, err
}

func isRefusal(err error) bool { return writeguard.IsRefusal(err) }

func (e *Executor) execute(ctx context.Context, req Request, entry *audit.Entry) (*Result, error) {
	if e.ReadOnly {
		return nil, ErrReadOnly
	}
	if strings.TrimSpace(req.Reason) == "" && req.Kind.Destructive() {
		return nil, refusef("a reason is required for %s (it goes into the Event and the audit log)", req.Kind)
	}
	c, ok := e.Cluster(req.Key.Context)
	if !ok {
		return nil, fmt.Errorf("unknown context %q", req.Key.Context)
	}
	actor, err := c.Access.Identity(ctx)
	if err != nil {
		return nil, err
	}
	entry.Actor = actor
	gvr, ok := engines.Resource(req.Key.Engine)
	if !ok {
		return nil, refusef("driftdeck has no actions for %s units yet", req.Key.Engine)
	}
	v, err := c.Access.Can(ctx, "patch", gvr, req.Key.Namespace, "")
	if err != nil {
		return nil, err
	}
	if !v.Allowed {
		return nil, &Refusal{Reason: v.Reason, Permission: true}
	}
	var p *Plan
	var after map[string]any
	for attempt := 1; ; attempt++ {
		env := &planEnv{ctx: ctx, cluster: c, actor: actor, now: e.now(), exec: e}
		obj, err := e.get(ctx, c, req.Key)
		if err != nil {
			return nil, err
		}
		if p, err = e.plan(env, obj, req); err != nil {
			return nil, err
		}
		entry.Previous = p.Previous
		body, err := patch(p.Patch).bytes()
		if err != nil {
			return nil, err
		}
		entry.Patch = body
		opts := metav1.PatchOptions{FieldManager: "driftdeck"}
		if e.DryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		out, err := c.Dynamic.Resource(p.gvr).Namespace(req.Key.Namespace).Patch(ctx, req.Key.Name, types.JSONPatchType, body, opts, subresources(p)...)
		if err == nil {
			after = out.Object
			break
		}
		if !preconditionFailed(err) {
			return nil, explainWriteError(req, err)
		}
		if attempt == maxAttempts {
			return nil, fmt.Errorf("%s changed under every one of %d attempts; try again: %w", req.Key.Ref(), maxAttempts, err)
		}
	}
	res := &Result{Plan: p, Actor: actor, DryRun: e.DryRun, ResourceVersion: lookupString(after, "metadata", "resourceVersion")}
	entry.ResourceVersion = res.ResourceVersion
	res.Token = annotationsOf(after)[pulumiop.AnnotationReconcileRequest]
	e.verify(c, req, p, after, res)
	if err := e.recordEvent(ctx, c, req, p, actor, after); err != nil {
		res.Warnings = append(res.Warnings, "the Kubernetes Event was not recorded: "+err.Error())
	}
	return res, nil
}

func subresources(p *Plan) []string {
	if p.subresource == "" {
		return nil
	}
	return []string{p.subresource}
}

// verify checks the write took, on the patched object the server returned,
// and names the owner that may revert it (Settled checks that later).
func (e *Executor) verify(c *kube.Cluster, req Request, p *Plan, after map[string]any, res *Result) {
	if p.verify == nil {
		res.Verified = true
		return
	}
	if err := p.verify(after); err != nil {
		res.Warnings = append(res.Warnings, "not in effect: "+err.Error())
		return
	}
	res.Verified = true
	if req.Key.Engine == model.EngineArgoCD && !e.DryRun && editsSpec(req.Kind) {
		res.MayRevert = argocd.Convert(c.Context, after).Owner
	}
}

// Settled waits the settle time after a write whose owner may revert it,
// reads the object again and returns what was reverted; empty when the
// write held or there is nothing to check.
func (e *Executor) Settled(ctx context.Context, res *Result) []string {
	if res == nil || res.MayRevert == "" || res.Plan == nil || res.Plan.verify == nil || e.Settle <= 0 {
		return nil
	}
	req := res.Plan.Request
	c, ok := e.Cluster(req.Key.Context)
	if !ok {
		return nil
	}
	select {
	case <-ctx.Done():
		return nil
	case <-time.After(e.Settle):
	}
	again, err := e.get(ctx, c, req.Key)
	if err != nil {
		return []string{"could not check whether " + res.MayRevert + " reverted the write: " + err.Error()}
	}
	if err := res.Plan.verify(again); err != nil {
		return []string{"reverted by " + res.MayRevert + " within " + e.Settle.String() + ": " + err.Error()}
	}
	return nil
}

func editsSpec(k Kind) bool {
	s, ok := SpecOf(k)
	return ok && s.EditsSpec
}

// preconditionFailed tells a failed test operation or a conflict (somebody
// wrote in between) from other errors.
func preconditionFailed(err error) bool {
	if apierrors.IsConflict(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "test operation") || strings.Contains(msg, "testing value")
}

func explainWriteError(req Request, err error) error {
	switch {
	case apierrors.IsForbidden(err):
		return &Refusal{Reason: fmt.Sprintf("the cluster refused the write to %s: %v", req.Key.Ref(), err), Permission: true}
	case apierrors.IsNotFound(err):
		return &Refusal{Reason: fmt.Sprintf("%s does not exist (any more)", req.Key.Ref())}
	}
	return fmt.Errorf("writing %s: %w", req.Key.Ref(), err)
}
