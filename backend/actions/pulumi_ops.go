package actions

import (
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// planStackRetry queues a new run of a Stack by giving the reconciliation
// request annotation a new value. It does not interrupt a running update; the
// request counts as handled when status.lastUpdate.reconcileRequest equals it.
func planStackRetry(env *planEnv, obj map[string]any, _ Request) (*Plan, error) {
	u := pulumiop.Convert(env.cluster.Context, obj)
	token := "driftdeck-" + env.now.UTC().Format("20060102T150405.000000000Z")
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.setAnnotations(annotationsOf(obj), map[string]string{pulumiop.AnnotationReconcileRequest: token})
	p := &Plan{gvr: pulumiop.Stacks, Patch: ops, eventReason: "DriftdeckRetry", eventVerb: "requested a new run of"}
	p.Summary = "request a new run of " + u.Key.Ref()
	p.Changes = []string{"metadata.annotations." + pulumiop.AnnotationReconcileRequest + ": " + orWord(u.Stack.RequestedRequest, "(unset)") + " → " + token}
	if u.Stack.CurrentUpdate != "" {
		p.Warnings = append(p.Warnings, "update "+u.Stack.CurrentUpdate+" is still running: the new run starts after it")
	}
	p.verify = func(after map[string]any) error {
		if annotationsOf(after)[pulumiop.AnnotationReconcileRequest] != token {
			return fmt.Errorf("the reconciliation request is not on the object after the write")
		}
		return nil
	}
	p.landed = requestLanded(obj, pulumiop.AnnotationReconcileRequest, token,
		[]string{"status", "observedReconcileRequest"}, []string{"status", "lastUpdate", "reconcileRequest"})
	return p, nil
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// planStackApprove approves what waits on a Stack: a proposed commit for a
// commit-pinned Stack (spec.commit moves to it), or the apply of a Stack run
// in preview-only mode (spec.preview goes false).
func planStackApprove(env *planEnv, obj map[string]any, _ Request) (*Plan, error) {
	u := pulumiop.Convert(env.cluster.Context, obj)
	f := u.Stack
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	p := &Plan{gvr: pulumiop.Stacks, eventReason: "DriftdeckApprove"}
	switch {
	case f.PendingCommit != "":
		if !fullSHA.MatchString(f.PendingCommit) {
			return nil, refusef("%s: proposed commit %q is not a full 40-character SHA; the operator would treat it as a branch name and stall", u.Key.Ref(), f.PendingCommit)
		}
		if f.Commit == "" {
			return nil, refusef("%s tracks a branch (%s), not a pinned commit: there is nothing to approve", u.Key.Ref(), f.Branch)
		}
		ops.test(f.Commit, "spec", "commit")
		ops.replace(f.PendingCommit, "spec", "commit")
		ops.removeAnnotations(annotationsOf(obj), []string{pulumiop.AnnotationProposedCommit})
		p.Summary = fmt.Sprintf("approve commit %s for %s (pinned at %s now)", short(f.PendingCommit), u.Key.Ref(), short(f.Commit))
		p.Changes = []string{"spec.commit: " + f.Commit + " → " + f.PendingCommit, "metadata.annotations." + pulumiop.AnnotationProposedCommit + ": (removed)"}
		p.eventVerb = "approved commit " + short(f.PendingCommit) + " for"
		want := f.PendingCommit
		p.verify = func(after map[string]any) error {
			if lookupString(after, "spec", "commit") != want {
				return fmt.Errorf("spec.commit is not %s after the write", want)
			}
			return nil
		}
	case f.Preview && u.Pause == nil:
		ops.test(true, "spec", "preview")
		ops.replace(false, "spec", "preview")
		p.Summary = "approve applying " + u.Key.Ref() + ": leave preview-only mode, so the operator runs `up`"
		p.Changes = []string{"spec.preview: true → false"}
		p.eventVerb = "approved applying"
		p.verify = func(after map[string]any) error {
			if v, _ := lookup(after, "spec", "preview"); v == true {
				return fmt.Errorf("spec.preview is still true after the write")
			}
			return nil
		}
	case f.Preview:
		return nil, refusef("%s is in preview-only mode because driftdeck paused it: resume it instead", u.Key.Ref())
	default:
		return nil, refusef("%s: nothing waits for approval (no proposed commit, not in preview-only mode)", u.Key.Ref())
	}
	p.Patch = ops
	return p, nil
}

// planStackPause switches a Stack to preview-only runs (spec.preview: true):
// the operator keeps reconciling but applies nothing. The previous value of
// spec.preview is recorded for resume.
func planStackPause(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u := pulumiop.Convert(env.cluster.Context, obj)
	if u.Pause != nil {
		return nil, nothingToDo("%s is already paused by %s since %s (%s)", u.Key.Ref(), u.Pause.By, u.Pause.At.Format(time.RFC3339), u.Pause.Reason)
	}
	if u.Stack.Preview {
		return nil, nothingToDo("%s already runs in preview-only mode: nothing is applied", u.Key.Ref())
	}
	if known, ok := env.schemaKnows("stacks.pulumi.com", "v1", "spec", "preview"); ok && !known {
		return nil, refusef("%s: the installed Pulumi operator CRD has no spec.preview (operator v1), so a Stack cannot be paused; pin spec.commit instead", u.Key.Ref())
	}
	p := flagPause(env, obj, req, "preview", pause.ModePreview)
	p.gvr, p.eventVerb = pulumiop.Stacks, "paused (preview only)"
	p.Summary = "pause " + u.Key.Ref() + ": the operator will only preview, never apply"
	p.Warnings = []string{"changing the spec starts one run of the operator: a preview, which changes nothing"}
	return p, nil
}

// planStackResume restores spec.preview as it was before the pause.
func planStackResume(env *planEnv, obj map[string]any, _ Request) (*Plan, error) {
	u := pulumiop.Convert(env.cluster.Context, obj)
	if u.Pause == nil {
		return nil, nothingToDo("%s is not paused by driftdeck (no %s annotation)", u.Key.Ref(), pause.AnnotationPrevious)
	}
	var previous any
	if err := json.Unmarshal([]byte(u.Pause.Previous), &previous); err != nil {
		return nil, refusef("%s: the recorded previous spec.preview %q cannot be read; restore it by hand", u.Key.Ref(), u.Pause.Previous)
	}
	if !u.Stack.Preview {
		return nil, refusef("%s: spec.preview was changed since the pause (it is no longer true); not restored — check who changed it", u.Key.Ref())
	}
	p := flagResume(obj, u, "preview", previous)
	p.gvr = pulumiop.Stacks
	p.Warnings = []string{"changing the spec starts a run of the operator: pending changes will be applied"}
	return p, nil
}
