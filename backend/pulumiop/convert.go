package pulumiop

import (
	"fmt"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pause"
)

// Convert turns a Stack object into a unit of the given context. It never
// fails: what it cannot read is listed in the unit's ReadErrors.
func Convert(context string, obj map[string]any) *model.Unit {
	r := objread.New(obj)
	u := model.UnitFromObject(context, model.EnginePulumi, "Stack", r)
	ann := r.StringMap("metadata", "annotations")
	spec, st := r.At("spec"), r.At("status")
	last, cur := st.At("lastUpdate"), st.At("currentUpdate")
	f := &model.StackFacts{
		StackName:        spec.Str("stack"),
		Branch:           spec.Str("branch"),
		Commit:           spec.Str("commit"),
		ProjectRepo:      spec.Str("projectRepo"),
		RepoDir:          spec.Str("repoDir"),
		Backend:          spec.Str("backend"),
		PendingCommit:    ann[AnnotationProposedCommit],
		RequestedRequest: ann[AnnotationReconcileRequest],
		ObservedRequest:  st.Str("observedReconcileRequest"),
		LastRequest:      last.Str("reconcileRequest"),
		LastState:        last.Str("state"),
		LastUpdateName:   last.Str("name"),
		LastFailures:     last.Int("failures"),
		LastMessage:      last.Str("message"),
		CurrentUpdate:    cur.Str("name"),
		Conditions:       readConditions(st),
		OperatorV2:       last.Has("name") || last.Has("type") || st.Has("currentUpdate"),
	}
	f.Preview, _ = spec.Bool("preview")
	f.DestroyOnFinalize, _ = spec.Bool("destroyOnFinalize")
	readSecretRefs(spec, u.Key.Namespace, f)
	for _, p := range spec.Objects("prerequisites") {
		if name := p.Str("name"); name != "" {
			// A prerequisite is a Stack of the same namespace.
			u.Parents = append(u.Parents, model.Key{Context: context, Engine: model.EnginePulumi, Namespace: u.Key.Namespace, Name: name})
		}
	}
	u.Stack = f
	if f.PendingCommit == f.Commit {
		f.PendingCommit = ""
	}

	u.Desired = desired(spec, f)
	u.Applied = last.Str("lastSuccessfulCommit")
	if last.Str("type") == "preview" {
		// A successful preview records its commit as "successful", but
		// nothing was applied.
		u.Applied = ""
	}
	u.Project = f.StackName

	ready, reconciling, stalled := condition(f, "Ready"), condition(f, "Reconciling"), condition(f, "Stalled")
	readHealth(u, f, ready, reconciling, stalled)
	readSync(u, f, ready)
	readAutomation(u, f, spec)

	var pauseErrs []string
	u.Pause, pauseErrs = pause.Read(ann)
	if u.Pause != nil && f.Preview {
		u.Automation, u.AutomationNative = model.Paused, "preview only (paused by driftdeck)"
	}
	classifyRun(u, f, ready, reconciling, stalled)
	u.LastChange = model.LatestCondition(f.Conditions)
	if t := last.Time("lastResyncTime"); t.After(u.LastChange) {
		u.LastChange = t
	}
	u.ReadErrors = append(r.Errors(), pauseErrs...)
	if u.Key.Name == "" {
		u.ReadErrors = append(u.ReadErrors, "metadata.name: missing")
	}
	return u
}

func desired(spec *objread.Reader, f *model.StackFacts) string {
	switch {
	case f.Commit != "":
		return f.Commit
	case f.Branch != "":
		return strings.TrimPrefix(f.Branch, "refs/heads/")
	case spec.Has("fluxSource"):
		return "flux:" + spec.Str("fluxSource", "sourceRef", "name")
	case spec.Has("programRef"):
		return "program:" + spec.Str("programRef", "name")
	}
	return ""
}

func readConditions(st *objread.Reader) []model.Condition {
	var out []model.Condition
	for _, c := range st.Objects("conditions") {
		out = append(out, model.Condition{
			Type: c.Str("type"), Status: c.Str("status"), Reason: c.Str("reason"),
			Message: c.Str("message"), Since: c.Time("lastTransitionTime"),
		})
	}
	return out
}

func condition(f *model.StackFacts, typ string) *model.Condition {
	for i, c := range f.Conditions {
		if c.Type == typ {
			return &f.Conditions[i]
		}
	}
	return nil
}

func isTrue(c *model.Condition) bool { return c != nil && c.Status == "True" }

func readHealth(u *model.Unit, f *model.StackFacts, ready, reconciling, stalled *model.Condition) {
	switch {
	case isTrue(stalled):
		u.Health, u.HealthNative = model.Degraded, "Stalled"
	case isTrue(reconciling):
		u.Health, u.HealthNative = model.Progressing, "Reconciling"
	case isTrue(ready):
		u.Health, u.HealthNative = model.Healthy, "Ready"
	case f.LastState == "failed":
		u.Health, u.HealthNative = model.Degraded, "failed"
	case ready != nil:
		u.Health, u.HealthNative = model.HealthUnknown, "NotReady"
	default:
		u.Health, u.HealthNative = model.HealthUnknown, ""
	}
}

func readSync(u *model.Unit, f *model.StackFacts, ready *model.Condition) {
	switch {
	case f.PendingCommit != "":
		u.Sync, u.SyncNative = model.Drifted, "new commit proposed"
	case f.Commit != "" && u.Applied != "" && f.Commit != u.Applied:
		u.Sync, u.SyncNative = model.Drifted, "pinned commit not applied"
	case f.LastState == "failed":
		u.Sync, u.SyncNative = model.Drifted, "last update failed"
	case f.Preview:
		u.Sync, u.SyncNative = model.SyncUnknown, "preview only: nothing applied"
	case isTrue(ready):
		u.Sync, u.SyncNative = model.InSync, "Ready"
	default:
		u.Sync, u.SyncNative = model.SyncUnknown, ""
	}
}

func readAutomation(u *model.Unit, f *model.StackFacts, spec *objread.Reader) {
	refresh, _ := spec.Bool("refresh")
	resync, _ := spec.Bool("continueResyncOnCommitMatch")
	switch {
	case f.Preview:
		u.Automation, u.AutomationNative = model.Manual, "preview only"
	case f.Commit != "":
		u.Automation, u.AutomationNative = model.Manual, "pinned commit"
	case refresh && resync:
		u.Automation, u.AutomationNative = model.SelfHeal, "tracks source, resync with refresh"
	default:
		u.Automation, u.AutomationNative = model.Auto, "tracks source"
	}
}

func classifyRun(u *model.Unit, f *model.StackFacts, ready, reconciling, stalled *model.Condition) {
	set := func(s model.RunState, since time.Time, reason string) {
		u.Observed, u.Run, u.RunSince, u.RunReason = s, s, since, reason
	}
	switch {
	case isTrue(stalled):
		set(model.Stuck, stalled.Since, "Stalled: "+stalled.Reason+": "+model.FirstLine(stalled.Message)+lastMessage(f))
		u.StuckRule = "the Stack's Stalled condition is True: the operator will not retry until the spec, source or reconciliation request changes"
		if LockConflict(f.LastMessage) {
			u.StuckRule += "; the last update failed on a state lock: see who holds it and break it if that run is dead, then retry"
		}
	case f.CurrentUpdate != "":
		set(model.Running, sinceOf(reconciling), "update "+f.CurrentUpdate+" in progress")
	case isTrue(reconciling) && reconciling.Reason == "RetryingAfterFailure" && LockConflict(f.LastMessage):
		set(model.Stuck, reconciling.Since, "update failed on a state lock"+lastMessage(f))
		u.StuckRule = "the last update failed because another update holds the stack's lock: retries fail until it is released; if its run is dead, break the lock, then retry"
	case isTrue(reconciling) && (reconciling.Reason == "RetryingAfterFailure" || reconciling.Reason == "PreviewFailed"):
		set(model.Failed, reconciling.Since, reconciling.Reason+": "+model.FirstLine(reconciling.Message)+lastMessage(f))
	case isTrue(reconciling):
		set(model.Running, reconciling.Since, reconciling.Reason+": "+model.FirstLine(reconciling.Message))
	case requestPending(f):
		// Requested but not run yet; the store dates it from when it was first seen.
		set(model.Running, time.Time{}, fmt.Sprintf("run requested (%s), not handled yet", f.RequestedRequest))
		u.Queued = true
	case f.PendingCommit != "":
		set(model.AwaitingApproval, time.Time{}, "commit "+short(f.PendingCommit)+" proposed; the Stack stays pinned at "+short(f.Commit)+" until approved")
	case f.LastState == "failed":
		set(model.Failed, sinceOf(ready), "last update failed"+lastMessage(f))
	default:
		set(model.Idle, sinceOf(ready), "")
	}
}

// LockConflict recognises the errors of an update refused by a state lock:
// Pulumi Cloud's 409 and the DIY backends' lock message.
func LockConflict(msg string) bool {
	return strings.Contains(msg, "currently locked by") || strings.Contains(msg, "Another update is currently in progress")
}

// requestPending tells whether the reconciliation request annotation has not
// been run yet. Operator v2 records the request an update ran for in
// lastUpdate.reconcileRequest (observedReconcileRequest is stamped before any
// work); operator v1 only has observedReconcileRequest.
func requestPending(f *model.StackFacts) bool {
	if f.RequestedRequest == "" || f.RequestedRequest == f.LastRequest {
		return false
	}
	return f.OperatorV2 || f.RequestedRequest != f.ObservedRequest
}

func lastMessage(f *model.StackFacts) string {
	if f.LastMessage == "" {
		return ""
	}
	return " — " + model.FirstLine(f.LastMessage)
}

func sinceOf(c *model.Condition) time.Time {
	if c == nil {
		return time.Time{}
	}
	return c.Since
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
