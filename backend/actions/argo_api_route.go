package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// argoAPI is the API server an Argo CD unit is read and written through,
// nil when it goes through the Kubernetes API.
func (e *Executor) argoAPI(k model.Key) *argoapi.Client { return argoapi.Routes(e.ArgoAPI).For(k) }

// getThroughArgo reads an Application as the user may get it. Argo CD
// answers 403 both for an Application the user may not get and for one
// that does not exist (so as not to tell them apart).
func getThroughArgo(ctx context.Context, api *argoapi.Client, k model.Key) (map[string]any, error) {
	app, err := api.Application(ctx, argoapi.AppOf(k))
	switch {
	case argoapi.PermissionDenied(err):
		return nil, &Refusal{Permission: true, Reason: fmt.Sprintf("%s: Argo CD RBAC: it may not be read, or it does not exist: %v", k.Ref(), err)}
	case argoapi.Unauthorized(err):
		return nil, &Refusal{Permission: true, Reason: err.Error()}
	case err != nil:
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	// The API answers the object without its type.
	if app["apiVersion"] == nil {
		app["apiVersion"], app["kind"] = "argoproj.io/v1alpha1", "Application"
	}
	return app, nil
}

// argoAction is the action of Argo CD's RBAC on applications a kind needs,
// as argocd-server enforces it for the request driftdeck sends.
func argoAction(k Kind) string {
	switch k {
	case Sync, Approve, Rollback, Terminate:
		return "sync"
	case Refresh, HardRefresh:
		return "get"
	}
	return "update" // a PATCH of the Application
}

// sentAsPatch tells the kinds sent through Argo CD's API server as the
// plan's JSON patch; the others are requests of their own (sync, rollback,
// terminate, refresh).
func sentAsPatch(k Kind) bool {
	switch k {
	case Sync, Approve, Rollback, Terminate, Refresh, HardRefresh:
		return false
	}
	return true
}

// patchForArgo words a patch for the JSON patch library argocd-server
// applies it with, on the Application as its API reads it (empty objects
// dropped). A test that a member is absent becomes a test of its nearest
// parent as read: that library fails a test of a missing member, where the
// Kubernetes API takes it as null; the precondition is kept, and made
// stronger. An add under a missing parent adds the parent with it.
func patchForArgo(ops []Op, obj map[string]any) []Op {
	out := make([]Op, 0, len(ops))
	for _, op := range ops {
		if op.Op != "test" && op.Op != "add" || op.Op == "test" && op.Value != nil {
			out = append(out, op)
			continue
		}
		segs := strings.Split(op.Path, "/")[1:]
		present := 0 // how many leading segments name a member of obj
		for present < len(segs) {
			if _, ok := lookupPointer(obj, "/"+strings.Join(segs[:present+1], "/")); !ok {
				break
			}
			present++
		}
		switch {
		case op.Op == "test" && present < len(segs):
			parent := "/" + strings.Join(segs[:present], "/")
			if present == 0 {
				parent = ""
			}
			v, _ := lookupPointer(obj, parent)
			op = Op{Op: "test", Path: parent, Value: deepCopyJSON(v)}
		case op.Op == "add" && present < len(segs)-1:
			value := op.Value
			for i := len(segs) - 1; i > present; i-- {
				value = map[string]any{unescapePointer(segs[i]): value}
			}
			op = Op{Op: "add", Path: "/" + strings.Join(segs[:present+1], "/"), Value: value}
		}
		out = append(out, op)
	}
	return out
}

// unescapePointer is a JSON pointer segment's member name.
func unescapePointer(seg string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
}

// argoAuthority lets Argo CD's RBAC decide a write sent through its API
// server, asked first with can-i, under the user the token is.
type argoAuthority struct {
	api  *argoapi.Client
	kind Kind
	user string
}

func (a *argoAuthority) Route() (string, string) { return "argocd-api", a.api.Server() }

func (a *argoAuthority) Identity(ctx context.Context) (string, error) {
	user, err := a.api.User(ctx)
	if argoapi.Unauthorized(err) {
		return "", &Refusal{Permission: true, Reason: err.Error()}
	}
	a.user = user
	return user, err
}

func (a *argoAuthority) WhyNot(ctx context.Context, at writeguard.Attempt) (string, error) {
	app, err := getThroughArgo(ctx, a.api, at.Key)
	if err != nil {
		return "", err
	}
	u := argocd.Convert(at.Key.Context, app)
	return argoWhyNotAllowed(ctx, a.api, a.user, u, a.kind)
}

// argoWhyNotAllowed asks Argo CD whether user may do kind on u, in the
// words of a Kubernetes RBAC refusal; "" when it may.
func argoWhyNotAllowed(ctx context.Context, api *argoapi.Client, user string, u *model.Unit, kind Kind) (string, error) {
	action := argoAction(kind)
	project := orWord(u.Project, "default")
	yes, err := api.CanI(ctx, "applications", action, argoapi.RBACName(project, u.Key.Namespace, u.Key.Name, u.Argo != nil && u.Argo.OutsideControlPlane))
	switch {
	case err != nil:
		return "", fmt.Errorf("asking Argo CD whether %s may %s %s: %w", user, action, u.Key.Ref(), err)
	case !yes:
		return fmt.Sprintf("Argo CD RBAC: %s may not %s applications in project %s", orWord(user, "this user"), action, project), nil
	}
	return "", nil
}

// windowsThroughArgo is the server's judgement of the sync windows of the
// Application: argocd-server refuses a manual sync in a closed window
// itself, and says so first here.
func (env *planEnv) windowsThroughArgo(u *model.Unit) (argocd.Verdict, []string) {
	w, err := env.api.SyncWindows(env.ctx, argoapi.AppOf(u.Key))
	if err != nil {
		return argocd.Verdict{AutoOK: true, ManualOK: true}, []string{"sync windows unknown: " + err.Error()}
	}
	v := argocd.Verdict{HasWindows: len(w.Active) > 0, AutoOK: true, ManualOK: w.CanSync}
	if !w.CanSync {
		v.Reason = "Argo CD says a manual sync is not allowed now"
		for _, a := range w.Active {
			v.Reason += fmt.Sprintf("; active %s window %q for %s", a.Kind, a.Schedule, a.Duration)
		}
	}
	return v, nil
}

// sendThroughArgo sends a plan through Argo CD's API server as the request
// the argocd CLI makes for it: sync and rollback as operations the server
// starts under the user, terminate, refresh, and every other write as the
// plan's JSON patch, its tests included (ADR 0033 says what they guard
// there). Requests without a precondition of their own are sent only after
// a fresh read finds the Application at the version the plan was made from.
func (e *Executor) sendThroughArgo(ctx context.Context, w *writeguard.Write, api *argoapi.Client, p *Plan) (*Result, error) {
	req := p.Request
	w.Entry.Previous = p.Previous
	body, err := patch(p.Patch).bytes()
	if err != nil {
		return nil, err
	}
	app := argoapi.AppOf(req.Key)
	var after map[string]any
	if !sentAsPatch(req.Kind) && req.Kind != Refresh && req.Kind != HardRefresh {
		if err := e.stillAt(ctx, api, p); err != nil {
			return nil, err
		}
	}
	if w.DryRun {
		// argocd-server has no dry run of these writes: nothing is sent.
		w.Entry.Patch = body
		return &Result{Plan: p, Actor: w.Actor, DryRun: true, Verified: true, ResourceVersion: p.ResourceVersion}, nil
	}
	switch req.Kind {
	case Sync, Approve:
		sr, serr := syncRequestOf(p.Patch)
		if serr != nil {
			return nil, serr
		}
		w.Entry.Patch, _ = json.Marshal(sr)
		after, err = api.Sync(ctx, app, sr)
	case Rollback:
		w.Entry.Patch, _ = json.Marshal(map[string]any{"id": req.HistoryID, "prune": req.Prune})
		after, err = api.Rollback(ctx, app, req.HistoryID, req.Prune, false)
	case Terminate:
		if err = api.Terminate(ctx, app); err == nil {
			after, err = getThroughArgo(ctx, api, req.Key)
		}
	case Refresh, HardRefresh:
		level := "normal"
		if req.Kind == HardRefresh {
			level = "hard"
		}
		after, err = api.Refresh(ctx, app, level)
		// The server answers once the controller has taken the refresh:
		// the answer is the proof, whether or not the comparison changed
		// status.reconciledAt within the second.
		q := *p
		q.verify = refreshTaken
		p = &q
	default:
		w.Entry.Patch = body
		after, err = api.Patch(ctx, app, body)
	}
	if err != nil {
		return nil, argoWriteError(req, err)
	}
	if after["apiVersion"] == nil {
		after["apiVersion"], after["kind"] = "argoproj.io/v1alpha1", "Application"
	}
	return e.finish(ctx, w, w.Cluster, req, p, after), nil
}

// refreshTaken checks the Application argocd-server answered a refresh
// with: the controller has removed the refresh annotation.
func refreshTaken(after map[string]any) error {
	if level, pending := annotationsOf(after)[argocd.AnnotationRefresh]; pending {
		return fmt.Errorf("Argo CD answered with the %s refresh still pending", level)
	}
	return nil
}

// stillAt refuses, as a failed precondition, a plan whose Application has
// moved on since it was read.
func (e *Executor) stillAt(ctx context.Context, api *argoapi.Client, p *Plan) error {
	now, err := getThroughArgo(ctx, api, p.Request.Key)
	if err != nil {
		return err
	}
	if rv := lookupString(now, "metadata", "resourceVersion"); rv != p.ResourceVersion {
		return &moved{err: fmt.Errorf("%s is at resourceVersion %s, not %s", p.Request.Key.Ref(), rv, p.ResourceVersion)}
	}
	return nil
}

// argoWriteError words the server's refusal of a write: a failed test of
// the patch is a moved object; Argo CD's RBAC and its own checks (another
// operation running, a sync window) are refusals in its own words.
func argoWriteError(req Request, err error) error {
	var ae *argoapi.Error
	switch {
	case PreconditionFailed(err):
		return &moved{err: err}
	case argoapi.PermissionDenied(err), argoapi.Unauthorized(err):
		return &Refusal{Permission: true, Reason: fmt.Sprintf("%s: %v", req.Key.Ref(), err)}
	case errors.As(err, &ae) && ae.Status == 400:
		return &Refusal{Reason: fmt.Sprintf("%s: %v", req.Key.Ref(), err)}
	}
	return fmt.Errorf("writing %s: %w", req.Key.Ref(), err)
}

// syncRequestOf is the API's sync request for the operation a sync plan
// sets: the same revision, options, resources and reason.
func syncRequestOf(ops []Op) (argoapi.SyncRequest, error) {
	var op map[string]any
	for _, o := range ops {
		if o.Op == "add" && o.Path == "/operation" {
			op, _ = o.Value.(map[string]any)
		}
	}
	if op == nil {
		return argoapi.SyncRequest{}, fmt.Errorf("the plan sets no operation")
	}
	sync, _ := op["sync"].(map[string]any)
	r := argoapi.SyncRequest{Revision: lookupString(sync, "revision"), Retry: op["retry"]}
	r.Prune, _ = sync["prune"].(bool)
	r.DryRun, _ = sync["dryRun"].(bool)
	r.Strategy, _ = sync["syncStrategy"].(map[string]any)
	r.Resources, _ = sync["resources"].([]any)
	r.Infos, _ = op["info"].([]any)
	for _, v := range sliceOf(sync, "revisions") {
		r.Revisions = append(r.Revisions, fmt.Sprint(v))
	}
	if opts := sliceOf(sync, "syncOptions"); opts != nil {
		r.SyncOptions = &argoapi.SyncOptions{}
		for _, v := range opts {
			r.SyncOptions.Items = append(r.SyncOptions.Items, fmt.Sprint(v))
		}
	}
	return r, nil
}
