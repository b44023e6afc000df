package actions

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/cmdline"
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
	// Origin is where the units were found, named by the commands a
	// refusal suggests.
	Origin cmdline.Origin
	// ArgoAPI, when it names a server for a context, is the Argo CD API
	// server that context's Applications are read and written through,
	// under the user's Argo CD identity and RBAC (ADR 0033).
	ArgoAPI func(context string) (*argoapi.Client, bool)

	schema schemaCache
}

// planEnv is what a planner may use.
type planEnv struct {
	ctx     context.Context
	cluster *kube.Cluster
	actor   string
	now     time.Time
	exec    *Executor
	// api is the Argo CD API server an Application is written through,
	// nil for the Kubernetes API.
	api *argoapi.Client
	// assumed are the schema answers the plan is made with (schemaKnows).
	assumed map[string]string
}

func (env *planEnv) knowsEnabled() bool {
	known, ok := env.schemaKnows("applications.argoproj.io", "v1alpha1", "spec", "syncPolicy", "automated", "enabled")
	// Unreadable CRD: assume the older schema. Removing the automated block
	// pauses on every generation; the annotation keeps what resume restores.
	return ok && known
}

// Answers of schemaKnows, as a plan records them.
const (
	schemaKnown   = "known"
	schemaUnknown = "unknown" // the field is not in the schema
	schemaUnread  = "unread"  // the CRD could not be read
)

// schemaKnows is whether the installed CRD knows a field, as the plan
// assumed it when it was made (a stored plan is judged by another identity,
// which may read the CRD when the requester could not), else as read now;
// the answer is recorded for the plan.
func (env *planEnv) schemaKnows(crd, version string, path ...string) (known, ok bool) {
	key := crd + "/" + version + "/" + joinPath(path)
	answer, hit := env.assumed[key]
	if !hit {
		known, ok := env.exec.schema.knows(env.ctx, env.cluster, crd, version, path...)
		answer = map[bool]string{true: schemaKnown, false: schemaUnknown}[known]
		if !ok {
			answer = schemaUnread
		}
		if env.assumed == nil {
			env.assumed = map[string]string{}
		}
		env.assumed[key] = answer
	}
	return answer == schemaKnown, answer != schemaUnread
}

// windows evaluates the sync windows of an app's AppProject, read fresh: it
// lives in Argo CD's control-plane namespace (status.controllerNamespace when
// the app is elsewhere). A project that cannot be read yields a warning.
func (env *planEnv) windows(u *model.Unit, app map[string]any) (argocd.Verdict, []string) {
	if env.api != nil {
		return env.windowsThroughArgo(u)
	}
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
	if s, ok := SpecOf(k); ok && s.plans[engine] != nil {
		return s.plans[engine], nil
	}
	return nil, refusef("%s cannot be done on a %s unit (it knows: %s)", k, engine, kindList(KindsFor(engine)))
}

// planRootModule answers an action on a root module: it has no object in
// a cluster; backend/rootmod runs it through tofu (ADR 0043).
func planRootModule(_ *planEnv, _ map[string]any, req Request) (*Plan, error) {
	return nil, refusef("%s of a root module runs through tofu, not the Kubernetes API: driftdeck %s %s", req.Kind, req.Kind, req.Key.Ref())
}

// planStateBackendWrite answers an action that writes a Stack's state
// backend, not the Stack: stackops plans and does it.
func planStateBackendWrite(_ *planEnv, _ map[string]any, req Request) (*Plan, error) {
	return nil, refusef("%s writes the Stack's state backend, not the Stack: it is planned and done by stackops (driftdeck %s)", req.Kind, req.Kind)
}

func kindList(ks []Kind) string {
	var s []string
	for _, k := range ks {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// Plan reads the object fresh and computes exactly what the action would
// write: a value, bound to the version read (its patch tests
// metadata.resourceVersion first), that Send writes as it is.
func (e *Executor) Plan(ctx context.Context, req Request) (*Plan, error) {
	env, obj, err := e.prepare(ctx, req)
	if err != nil {
		return nil, err
	}
	return e.plan(env, obj, req, true)
}

func (e *Executor) prepare(ctx context.Context, req Request) (*planEnv, map[string]any, error) {
	c, ok := e.Cluster(req.Key.Context)
	if !ok {
		return nil, nil, fmt.Errorf("unknown context %q", req.Key.Context)
	}
	api := e.argoAPI(req.Key)
	var actor string
	var err error
	if api != nil {
		actor, err = (&argoAuthority{api: api}).Identity(ctx)
	} else {
		actor, err = c.Access.Identity(ctx)
	}
	if err != nil {
		return nil, nil, err
	}
	env := &planEnv{ctx: ctx, cluster: c, actor: actor, now: e.now(), exec: e, api: api}
	obj, err := e.get(ctx, c, req.Key)
	return env, obj, err
}

// resourceOf is the resource a unit is read and written through: the newest
// version of its engine the cluster serves, when discovery ran, else the
// newest driftdeck knows.
func resourceOf(c *kube.Cluster, e model.Engine) (schema.GroupVersionResource, bool) {
	for _, v := range engines.Versions(e) {
		if c.Has(v) {
			return v, true
		}
	}
	return engines.Resource(e)
}

func (e *Executor) get(ctx context.Context, c *kube.Cluster, k model.Key) (map[string]any, error) {
	if api := e.argoAPI(k); api != nil {
		return getThroughArgo(ctx, api, k)
	}
	gvr, ok := resourceOf(c, k.Engine)
	if !ok {
		return nil, refusef("driftdeck has no actions for %s units yet", k.Engine)
	}
	obj, err := c.Dynamic.Resource(gvr).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, &Refusal{Reason: fmt.Sprintf("%s does not exist (any more)", k.Ref()), NotFound: true}
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	return obj.Object, nil
}

// plan runs the request's planner on obj. A bound plan's patch tests the
// object's resourceVersion first: it is written only to the version read.
func (e *Executor) plan(env *planEnv, obj map[string]any, req Request, bound bool) (*Plan, error) {
	pl, err := plannerFor(req.Key.Engine, req.Kind)
	if err != nil {
		return nil, err
	}
	p, err := pl(env, obj, req)
	if err != nil {
		return nil, err
	}
	if err := freshVerdict(env, obj, req); err != nil {
		return nil, err
	}
	if len(req.Annotate) > 0 {
		ops := patch(p.Patch)
		ops.updateAnnotations(annotationsOf(obj), req.Annotate)
		p.Patch = ops
		p.Changes = append(p.Changes, annotationChanges(req.Annotate)...)
	}
	if env.api != nil && sentAsPatch(req.Kind) {
		p.Patch = patchForArgo(p.Patch, obj)
	}
	if p.gvr.Resource == "" {
		p.gvr, _ = resourceOf(env.cluster, req.Key.Engine)
	}
	p.Request = req
	p.ResourceVersion = lookupString(obj, "metadata", "resourceVersion")
	p.at, p.actor, p.uid, p.assumed = env.now, env.actor, lookupString(obj, "metadata", "uid"), env.assumed
	if bound {
		p.Patch = append([]Op{versionTest(p.ResourceVersion)}, p.Patch...)
	}
	return p, nil
}

// finish builds the result of a write from the object after it, verifies
// it, and names the Event to record.
func (e *Executor) finish(ctx context.Context, w *writeguard.Write, c *kube.Cluster, req Request, p *Plan, after map[string]any) *Result {
	res := &Result{Plan: p, Actor: w.Actor, DryRun: w.DryRun, ResourceVersion: lookupString(after, "metadata", "resourceVersion")}
	w.Entry.ResourceVersion = res.ResourceVersion
	res.Token = annotationsOf(after)[pulumiop.AnnotationReconcileRequest]
	if p.token != "" {
		res.Token = p.token
	}
	e.verify(c, req, p, after, res)
	if h := p.hold; h != nil && !h.first {
		// The Application is resumed (and announced as such); the entry left
		// behind keeps it off its template's policy, so the resume is not
		// wholly in effect.
		if _, err := e.writeHold(ctx, req, p, h.patch, string(req.Kind)); err != nil {
			res.Verified = false
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s is resumed, but the entry the pause added to %s was not removed: %v; remove the entry for %s from its spec.ignoreApplicationDifferences by hand",
				req.Key.Ref(), h.key.Ref(), holdError(h, err), req.Key.Name))
		}
	}
	w.Event = &writeguard.Event{Reason: p.eventReason, Verb: p.eventVerb, Until: req.Until, Object: objectRef(after)}
	return res
}

// objectRef is what an Event names of the object a write returned.
func objectRef(after map[string]any) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion:      lookupString(after, "apiVersion"),
		Kind:            lookupString(after, "kind"),
		UID:             types.UID(lookupString(after, "metadata", "uid")),
		ResourceVersion: lookupString(after, "metadata", "resourceVersion"),
	}
}

// writeBefore writes a plan's writes to other objects, in order: a unit's
// sources' requests, each a JSON patch with its own preconditions, or a hung
// update's pod deleted bound to its uid; each asked its check first.
func writeBefore(ctx context.Context, c *kube.Cluster, p *Plan, opts metav1.PatchOptions, now time.Time) error {
	for _, sw := range p.before {
		if sw.check != nil {
			if err := sw.check(ctx, now); err != nil {
				return err
			}
		}
		ref := model.Ref{Kind: sw.gvr.Resource, Namespace: sw.namespace, Name: sw.name}.String()
		var err error
		if sw.deleteUID != "" {
			uid := types.UID(sw.deleteUID)
			err = c.Dynamic.Resource(sw.gvr).Namespace(sw.namespace).Delete(ctx, sw.name, metav1.DeleteOptions{DryRun: opts.DryRun, Preconditions: &metav1.Preconditions{UID: &uid}})
		} else {
			var body []byte
			if body, err = patch(sw.patch).bytes(); err != nil {
				return err
			}
			_, err = c.Dynamic.Resource(sw.gvr).Namespace(sw.namespace).Patch(ctx, sw.name, types.JSONPatchType, body, opts)
		}
		switch {
		case err != nil && (PreconditionFailed(err) || sw.deleteUID != "" && apierrors.IsNotFound(err)):
			return &Refusal{Reason: ref + " changed while driftdeck wrote to it: nothing written to the unit; look again and retry"}
		case apierrors.IsForbidden(err):
			return &Refusal{Reason: "the cluster refused the request to " + ref + ": " + err.Error(), Permission: true}
		case err != nil:
			return fmt.Errorf("requesting %s: %w", ref, err)
		}
	}
	return nil
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
// write held, there is nothing to check, or Bulk checked it already.
func (e *Executor) Settled(ctx context.Context, res *Result) []string {
	if res == nil || res.settled || res.MayRevert == "" || res.Plan == nil || res.Plan.verify == nil || e.Settle <= 0 || !e.wait(ctx) {
		return nil
	}
	return e.reverted(ctx, res)
}

// wait waits the settle time; false when there is none or ctx ended.
func (e *Executor) wait(ctx context.Context) bool {
	if e.Settle <= 0 {
		return false
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(e.Settle):
		return true
	}
}

// reverted reads the object of a write again and says what its owner
// reverted.
func (e *Executor) reverted(ctx context.Context, res *Result) []string {
	if res.Plan == nil || res.Plan.verify == nil {
		return nil
	}
	req := res.Plan.Request
	c, ok := e.Cluster(req.Key.Context)
	if !ok {
		return nil
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
// wrote in between) from other errors. The API server answers a JSON patch
// operation that does not hold (a test, a path that is gone) with a bare 422
// that names no cause (k8s.io/apiserver handlers/patch.go, applyJSPatch);
// schema validation failures name theirs.
func PreconditionFailed(err error) bool {
	if apierrors.IsConflict(err) {
		return true
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		s := st.Status()
		if s.Code == http.StatusUnprocessableEntity && s.Reason == metav1.StatusReasonInvalid && (s.Details == nil || len(s.Details.Causes) == 0) {
			return true
		}
	}
	msg := err.Error()
	return strings.Contains(msg, "test operation") || strings.Contains(msg, "testing value")
}

func explainWriteError(req Request, err error) error {
	switch {
	case apierrors.IsForbidden(err):
		return &Refusal{Reason: fmt.Sprintf("the cluster refused the write to %s: %v", req.Key.Ref(), err), Permission: true}
	case apierrors.IsNotFound(err):
		return &Refusal{Reason: fmt.Sprintf("%s does not exist (any more)", req.Key.Ref()), NotFound: true}
	}
	return fmt.Errorf("writing %s: %w", req.Key.Ref(), err)
}
