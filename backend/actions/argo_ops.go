package actions

import (
	"fmt"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// planArgoSync requests a sync the way Argo CD's API does: it sets the
// top-level operation and clears status.operationState in one write, refusing
// while another operation is set. With req.Revision the sync is bound to the
// revision the user reviewed.
func planArgoSync(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u := argocd.Convert(env.cluster.Context, obj)
	f := u.Argo
	if f.OperationSet {
		return nil, refusef("%s: another operation is in progress (phase %s); wait for it or terminate it first", u.Key.Ref(), orWord(f.Phase, "queued"))
	}
	compared := lookupString(obj, "status", "sync", "revision")
	if req.Kind == Approve && req.Revision == "" {
		req.Revision = compared
	}
	if req.Revision != "" && compared != "" && compared != req.Revision {
		return nil, refusef("%s now compares against revision %s, not the %s you reviewed: review the diff again", u.Key.Ref(), short(compared), short(req.Revision))
	}
	verdict, notes := env.windows(u, obj)
	if !verdict.ManualOK {
		return nil, refusef("%s: blocked by sync window: %s", u.Key.Ref(), verdict.Reason)
	}
	hook := map[string]any{}
	if req.Force {
		hook["force"] = true
	}
	sync := map[string]any{
		"prune":        req.Prune,
		"syncStrategy": map[string]any{"hook": hook},
	}
	if req.SyncDryRun {
		sync["dryRun"] = true
	}
	if f.MultiSource {
		if req.Revision != "" {
			sync["revisions"] = strings.Split(req.Revision, ",")
		}
	} else {
		sync["revision"] = req.Revision
	}
	opts, _ := lookup(obj, "spec", "syncPolicy", "syncOptions")
	if req.ApplyOutOfSyncOnly {
		opts = withSyncOption(opts, "ApplyOutOfSyncOnly", "true")
	}
	if opts != nil {
		sync["syncOptions"] = deepCopyJSON(opts)
	}
	if len(req.Resources) > 0 {
		var rs []any
		for _, r := range req.Resources {
			rs = append(rs, map[string]any{"group": r.Group, "kind": r.Kind, "namespace": r.Namespace, "name": r.Name})
		}
		sync["resources"] = rs
	}
	op := operation(env, req, sync, obj)
	p := &Plan{gvr: argocd.Applications, eventReason: "DriftdeckSync", eventVerb: "requested a sync of"}
	p.Patch = operationPatch(obj, op)
	what := "sync " + u.Key.Ref()
	if req.Revision != "" {
		what += " to revision " + short(req.Revision)
	} else {
		what += " to its target revision (" + f.TargetRevision + ")"
	}
	what += syncChoices(req)
	if len(req.Resources) > 0 {
		what += fmt.Sprintf(", %d selected resources only", len(req.Resources))
	}
	p.Summary = what
	p.Changes = append(flatten("operation", op), "status.operationState: (cleared)")
	if verdict.Reason != "" {
		p.Warnings = append(p.Warnings, "sync window: "+verdict.Reason)
	}
	p.Warnings = append(p.Warnings, notes...)
	if f.Phase == "Running" {
		p.Warnings = append(p.Warnings, "the previous operation is a zombie (Running with no operation); this sync replaces it")
	}
	p.verify = verifyOperationRequested(env)
	p.landed = operationLanded(obj, op, env.now)
	return p, nil
}

// withSyncOption returns the app's syncOptions with name=value in place of
// any other value of name; the app's own list is not modified.
func withSyncOption(opts any, name, value string) []any {
	list, _ := opts.([]any)
	out := make([]any, 0, len(list)+1)
	for _, o := range list {
		if s, _ := o.(string); strings.HasPrefix(s, name+"=") {
			continue
		}
		out = append(out, o)
	}
	return append(out, name+"="+value)
}

// syncChoices words the options of a sync for its summary.
func syncChoices(req Request) string {
	var what string
	if req.Prune {
		what += ", pruning"
	}
	if req.Force {
		what += ", forcing (replace what cannot be patched)"
	}
	if req.ApplyOutOfSyncOnly {
		what += ", applying only what is out of sync"
	}
	if req.SyncDryRun {
		what += ", as an Argo CD dry run (nothing applied)"
	}
	return what
}

// operation builds an Application operation carrying who and why.
func operation(env *planEnv, req Request, sync map[string]any, obj map[string]any) map[string]any {
	op := map[string]any{
		"initiatedBy": map[string]any{"username": env.actor, "automated": false},
		"sync":        sync,
	}
	if req.Reason != "" {
		op["info"] = []any{map[string]any{"name": "Reason", "value": req.Reason}}
	}
	if retry, ok := lookup(obj, "spec", "syncPolicy", "retry"); ok {
		op["retry"] = deepCopyJSON(retry)
	}
	return op
}

// operationPatch sets operation under the precondition that none is set, and
// clears a finished (or zombie) operationState it saw, testing its phase.
func operationPatch(obj map[string]any, op map[string]any) []Op {
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.test(nil, "operation")
	ops.add(op, "operation")
	if _, ok := lookup(obj, "status", "operationState"); ok {
		ops.test(lookupString(obj, "status", "operationState", "phase"), "status", "operationState", "phase")
		ops.remove("status", "operationState")
	}
	return ops
}

func verifyOperationRequested(env *planEnv) func(map[string]any) error {
	return func(after map[string]any) error {
		for _, path := range [][]string{{"operation", "initiatedBy", "username"}, {"status", "operationState", "operation", "initiatedBy", "username"}} {
			if lookupString(after, path...) == env.actor {
				return nil
			}
		}
		return fmt.Errorf("the operation is not on the object after the write")
	}
}

// planArgoTerminate asks the controller to stop a running operation, under the
// precondition that it is still Running.
func planArgoTerminate(env *planEnv, obj map[string]any, _ Request) (*Plan, error) {
	u := argocd.Convert(env.cluster.Context, obj)
	f := u.Argo
	switch {
	case f.Phase == "Running" && !f.OperationSet:
		return nil, refusef("%s: the operation is a zombie (phase Running with no operation): the controller will not act on a terminate; start a new sync instead", u.Key.Ref())
	case f.Phase == "Terminating":
		return nil, refusef("%s: the operation is already terminating", u.Key.Ref())
	case f.Phase != "Running":
		return nil, refusef("%s: no running operation to terminate (phase %s)", u.Key.Ref(), orWord(f.Phase, "none"))
	}
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.test("Running", "status", "operationState", "phase")
	ops.replace("Terminating", "status", "operationState", "phase")
	p := &Plan{gvr: argocd.Applications, Patch: ops, eventReason: "DriftdeckTerminate", eventVerb: "terminated the operation of"}
	p.Summary = fmt.Sprintf("terminate the sync of %s running since %s", u.Key.Ref(), f.StartedAt.Format(time.RFC3339))
	p.Changes = []string{"status.operationState.phase: Running → Terminating"}
	p.verify = func(after map[string]any) error {
		ph := lookupString(after, "status", "operationState", "phase")
		if ph == "Running" {
			return fmt.Errorf("the operation is still Running after the write")
		}
		return nil
	}
	p.landed = terminateLanded(obj)
	return p, nil
}

// planArgoRefresh sets the refresh annotation, which the controller removes
// once it has compared the app again.
func planArgoRefresh(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u := argocd.Convert(env.cluster.Context, obj)
	level := "normal"
	if req.Kind == HardRefresh {
		level = "hard"
	}
	switch pending := annotationsOf(obj)[argocd.AnnotationRefresh]; {
	case pending == "hard", pending == level:
		return nil, satisfied("%s: a %s refresh is already requested and not yet picked up by the controller", u.Key.Ref(), pending)
	}
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.setAnnotations(annotationsOf(obj), map[string]string{argocd.AnnotationRefresh: level})
	p := &Plan{gvr: argocd.Applications, Patch: ops, eventReason: "DriftdeckRefresh", eventVerb: "requested a " + level + " refresh of"}
	p.Summary = level + " refresh of " + u.Key.Ref()
	p.Changes = []string{"metadata.annotations." + argocd.AnnotationRefresh + ": " + level}
	p.verify = func(after map[string]any) error {
		if _, pending := annotationsOf(after)[argocd.AnnotationRefresh]; pending {
			return nil
		}
		if lookupString(after, "status", "reconciledAt") != lookupString(obj, "status", "reconciledAt") {
			return nil // already handled
		}
		return fmt.Errorf("the refresh annotation is not on the object after the write")
	}
	p.landed = refreshLanded(obj, level, env.now)
	return p, nil
}

// planArgoRollback syncs to a history entry with the apply strategy. Argo CD
// refuses rollbacks while auto-sync is on (it would sync forward again).
func planArgoRollback(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u := argocd.Convert(env.cluster.Context, obj)
	f := u.Argo
	if f.AutoSync {
		pause := env.exec.Origin.Driftdeck(u.Key.Context, "pause", u.Key.Ref(), "--reason", safetext.Visible(orWord(req.Reason, "before a rollback")))
		return nil, refusef("%s: auto-sync is on and would undo a rollback: pause it first (`%s`)", u.Key.Ref(), pause)
	}
	if f.OperationSet {
		return nil, refusef("%s: another operation is in progress; wait for it or terminate it first", u.Key.Ref())
	}
	var entry map[string]any
	for _, h := range sliceOf(obj, "status", "history") {
		if m, ok := h.(map[string]any); ok && toInt64(m["id"]) == req.HistoryID {
			entry = m
		}
	}
	if entry == nil {
		return nil, refusef("%s has no history entry %d (have: %s)", u.Key.Ref(), req.HistoryID, historyIDs(f))
	}
	verdict, notes := env.windows(u, obj)
	if !verdict.ManualOK {
		return nil, refusef("%s: blocked by sync window: %s", u.Key.Ref(), verdict.Reason)
	}
	sync := map[string]any{"prune": req.Prune, "syncStrategy": map[string]any{"apply": map[string]any{}}}
	for _, k := range []string{"revision", "revisions", "source", "sources"} {
		if v, ok := entry[k]; ok {
			sync[k] = deepCopyJSON(v)
		}
	}
	op := operation(env, req, sync, obj)
	p := &Plan{gvr: argocd.Applications, Patch: operationPatch(obj, op), eventReason: "DriftdeckRollback", eventVerb: "rolled back"}
	p.Summary = fmt.Sprintf("roll back %s to history entry %d (revision %s)", u.Key.Ref(), req.HistoryID, short(fmt.Sprint(entry["revision"])))
	p.Warnings = append(p.Warnings, notes...)
	p.Changes = append(flatten("operation", op), "status.operationState: (cleared)")
	p.verify = verifyOperationRequested(env)
	p.landed = operationLanded(obj, op, env.now)
	return p, nil
}

// planArgoConfirmPrune approves pending prunes: the controller accepts an
// approval dated at or after the operation's start.
func planArgoConfirmPrune(env *planEnv, obj map[string]any, _ Request) (*Plan, error) {
	u := argocd.Convert(env.cluster.Context, obj)
	f := u.Argo
	waiting := f.Phase == "Running" && strings.Contains(f.PhaseMessage, "pruning confirmation")
	if !waiting && !f.PruneRequired {
		return nil, refusef("%s: nothing waits for prune confirmation", u.Key.Ref())
	}
	at := env.now.UTC()
	if f.StartedAt.After(at) {
		at = f.StartedAt // clocks disagree: never date the approval before the operation
	}
	stamp := at.Format(time.RFC3339)
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.setAnnotations(annotationsOf(obj), map[string]string{argocd.AnnotationDeletionApproved: stamp})
	p := &Plan{gvr: argocd.Applications, Patch: ops, eventReason: "DriftdeckConfirmPrune", eventVerb: "confirmed pruning for"}
	p.Summary = "confirm the pending prune of " + u.Key.Ref()
	if f.PhaseMessage != "" {
		p.Summary += ": " + f.PhaseMessage
	}
	p.Changes = []string{"metadata.annotations." + argocd.AnnotationDeletionApproved + ": " + stamp}
	p.verify = func(after map[string]any) error {
		if annotationsOf(after)[argocd.AnnotationDeletionApproved] == "" {
			return fmt.Errorf("the approval annotation is not on the object after the write")
		}
		return nil
	}
	return p, nil
}

func historyIDs(f *model.ArgoFacts) string {
	var s []string
	for _, id := range f.HistoryIDs {
		s = append(s, fmt.Sprint(id))
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func sliceOf(obj map[string]any, path ...string) []any {
	v, _ := lookup(obj, path...)
	s, _ := v.([]any)
	return s
}

func toInt64(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return -1
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func short(rev string) string {
	if len(rev) == 40 && !strings.ContainsAny(rev, "/,") {
		return rev[:7]
	}
	return rev
}
