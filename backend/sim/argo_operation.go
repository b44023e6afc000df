package sim

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/driftdeck/driftdeck/backend/objread"
)

// startOperation picks up a requested operation: a fresh operationState in
// phase Running replaces whatever completed state was there. Like the real
// controller it records the revision being synced in syncResult at once.
func (a *Argo) startOperation(ctx context.Context, app *app, now time.Time) (time.Duration, error) {
	state := map[string]any{
		"operation":  runtime.DeepCopyJSON(app.operation),
		"phase":      "Running",
		"message":    msgRunning,
		"startedAt":  timestamp(now),
		"finishedAt": nil,
		"syncResult": a.syncTarget(app, objread.New(app.operation)),
		"retryCount": nil,
	}
	if _, err := mergePatch(ctx, a.client(app.key.namespace), app.key.name, argoManager,
		map[string]any{"status": map[string]any{"operationState": state}}); err != nil {
		return 0, err
	}
	a.mu.Lock()
	a.began[app.key] = now
	a.mu.Unlock()
	return a.opts.SyncDuration, nil
}

// progress moves a running operation on: termination, the sync window, prune
// confirmation, then completion once the sync has run long enough.
func (a *Argo) progress(ctx context.Context, app *app, now time.Time) (time.Duration, error) {
	if app.phase == "Terminating" {
		return 0, a.finish(ctx, app, "Failed", msgTerminated, now)
	}
	if app.phase != "Running" {
		return 0, nil
	}
	v := a.windows(app, now)
	blocked := !v.AutoOK
	if !app.automatedOp() {
		blocked = !v.ManualOK
	}
	if blocked {
		a.mu.Lock()
		delete(a.began, app.key) // the sync starts over once the window allows it
		a.mu.Unlock()
		return a.opts.WindowRecheck, a.setMessage(ctx, app, msgBlockedByWindow)
	}
	began := a.beganAt(app, now)
	if app.message == msgBlockedByWindow {
		if err := a.setMessage(ctx, app, msgRunning); err != nil {
			return 0, err
		}
	}
	if a.behavior(app.key).Hang {
		if strings.HasPrefix(app.message, msgWaitingPrefix) {
			return 0, nil
		}
		return 0, a.setMessage(ctx, app, msgWaitingPrefix+"completion of hook batch/Job/"+app.key.name+"-presync")
	}
	if pending := app.unconfirmedPrunes(); len(pending) > 0 && !app.deletionConfirmed() {
		return 0, a.setMessage(ctx, app, pruneMessage(pending))
	}
	if left := a.opts.SyncDuration - now.Sub(began); left > 0 {
		return left, nil
	}
	if msg := a.behavior(app.key).FailWith; msg != "" {
		return 0, a.finish(ctx, app, "Failed", msg, now)
	}
	return 0, a.finish(ctx, app, "Succeeded", msgSucceeded, now)
}

func (a *Argo) beganAt(app *app, now time.Time) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.began[app.key]
	if !ok {
		// Not started by this process (seeded, or after a restart): count
		// from startedAt, unless the sync was just unblocked.
		t = app.startedAt
		if app.message == msgBlockedByWindow || t.IsZero() {
			t = now
		}
		a.began[app.key] = t
	}
	return t
}

func (a *Argo) setMessage(ctx context.Context, app *app, msg string) error {
	if app.message == msg {
		return nil
	}
	_, err := mergePatch(ctx, a.client(app.key.namespace), app.key.name, argoManager,
		map[string]any{"status": map[string]any{"operationState": map[string]any{"message": msg}}})
	return err
}

// unconfirmedPrunes lists the resources whose pruning waits for a
// confirmation: the operation prunes with Prune=confirm and they require
// pruning.
func (a *app) unconfirmedPrunes() []string {
	op := objread.New(a.operation)
	if prune, _ := op.Bool("sync", "prune"); !prune {
		return nil
	}
	confirm := false
	for _, o := range op.Slice("sync", "syncOptions") {
		if o == "Prune=confirm" {
			confirm = true
		}
	}
	if !confirm {
		return nil
	}
	var out []string
	for _, it := range a.resourceList {
		r := objread.New(asMap(it))
		if ok, _ := r.Bool("requiresPruning"); ok {
			out = append(out, r.Str("group")+"/"+r.Str("kind")+"/"+r.Str("name"))
		}
	}
	return out
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// deletionConfirmed: argocd.argoproj.io/deletion-approved holds a time at or
// after the operation's start.
func (a *app) deletionConfirmed() bool {
	t, err := time.Parse(time.RFC3339, a.deletionApproved)
	return err == nil && !t.Before(a.startedAt)
}

func pruneMessage(pending []string) string {
	msg := "waiting for pruning confirmation of " + pending[0]
	if len(pending) > 1 {
		msg += fmt.Sprintf(" and %d more resources", len(pending)-1)
	}
	return msg
}

// finish completes the operation. The same write records the result and
// clears the top-level operation, as the controller's setOperationState does.
func (a *Argo) finish(ctx context.Context, app *app, phase, message string, now time.Time) error {
	op := objread.New(app.operation)
	revs := a.operationRevisions(app, op)
	state := runtime.DeepCopyJSON(app.opState)
	state["phase"], state["message"], state["finishedAt"] = phase, message, timestamp(now)
	result := a.syncTarget(app, op)
	result["resources"] = a.syncResultResources(app, phase, message)
	state["syncResult"] = result
	status := map[string]any{"operationState": state}
	if phase == "Succeeded" {
		a.recordSuccess(app, status, op, revs, now)
	}
	patch := map[string]any{"operation": nil, "status": status}
	if _, err := mergePatch(ctx, a.client(app.key.namespace), app.key.name, argoManager, patch); err != nil {
		return err
	}
	a.forget(app.key)
	rev := strings.Join(revs, ",")
	if phase == "Succeeded" {
		a.rec.event(ctx, app.obj, "Normal", "OperationCompleted", fmt.Sprintf("Sync operation to %s succeeded", rev))
	} else {
		a.rec.event(ctx, app.obj, "Warning", "OperationCompleted", fmt.Sprintf("Sync operation to %s failed: %s", rev, message))
	}
	return nil
}

// recordSuccess adds what a successful sync changes: sync status, health,
// resources, and a history entry.
func (a *Argo) recordSuccess(app *app, status map[string]any, op *objread.Reader, revs []string, now time.Time) {
	heads := app.syncRevisions
	if len(heads) == 0 {
		heads = revs
	}
	sync := map[string]any{"status": "Synced", "comparedTo": map[string]any{"destination": objread.New(app.obj.Object).Map("spec", "destination")}}
	if !sameRevisions(heads, revs) {
		sync["status"] = "OutOfSync" // synced to another revision than the branch's (a rollback)
	}
	if app.multiSource {
		sync["revisions"] = toAny(heads)
		sync["comparedTo"].(map[string]any)["sources"] = sourcesRaw(app)
	} else {
		sync["revision"] = heads[0]
		sync["comparedTo"].(map[string]any)["source"] = app.sources[0].raw
	}
	status["sync"] = sync
	status["reconciledAt"] = timestamp(now)
	if objread.New(app.obj.Object).Str("status", "health", "status") != "Healthy" {
		status["health"] = map[string]any{"status": "Healthy", "lastTransitionTime": timestamp(now)}
	}
	pruned := map[string]bool{}
	for _, p := range app.unconfirmedPrunes() {
		pruned[p] = true
	}
	var resources []any
	for _, it := range app.resources(func(_ int, r map[string]any) {
		r["status"] = "Synced"
		if h, ok := r["health"].(map[string]any); ok {
			h["status"] = "Healthy"
		}
	}) {
		r := objread.New(asMap(it))
		if !pruned[r.Str("group")+"/"+r.Str("kind")+"/"+r.Str("name")] {
			resources = append(resources, it)
		}
	}
	status["resources"] = resources
	status["conditions"] = withoutCondition(app.conds, "SyncError")
	if _, partial := op.Map("sync")["resources"]; partial || isDryRun(op) {
		return // only full syncs make history
	}
	var lastID int64
	if n := len(app.history); n > 0 {
		lastID = objread.New(asMap(app.history[n-1])).Int("id")
	}
	entry := map[string]any{
		"id":              lastID + 1,
		"deployedAt":      timestamp(now),
		"deployStartedAt": timestamp(app.startedAt),
		"initiatedBy":     op.Map("initiatedBy"),
	}
	if app.multiSource {
		entry["revisions"], entry["sources"] = toAny(revs), sourcesRaw(app)
	} else {
		entry["revision"], entry["source"] = revs[0], app.sources[0].raw
	}
	history := append(append([]any{}, app.history...), entry)
	if limit := int(app.historyLimit); limit > 0 && len(history) > limit {
		history = history[len(history)-limit:]
	}
	status["history"] = history
}

// syncTarget is the start of a syncResult: the revisions and sources the
// operation syncs.
func (a *Argo) syncTarget(app *app, op *objread.Reader) map[string]any {
	revs := a.operationRevisions(app, op)
	if app.multiSource {
		return map[string]any{"revisions": toAny(revs), "sources": sourcesRaw(app)}
	}
	return map[string]any{"revision": revs[0], "source": app.sources[0].raw}
}

func isDryRun(op *objread.Reader) bool {
	dry, _ := op.Bool("sync", "dryRun")
	return dry
}

func sourcesRaw(app *app) []any {
	out := make([]any, len(app.sources))
	for i, s := range app.sources {
		out[i] = s.raw
	}
	return out
}

func withoutCondition(conds []any, typ string) []any {
	out := []any{}
	for _, c := range conds {
		if asMap(c)["type"] != typ {
			out = append(out, c)
		}
	}
	return out
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// operationRevisions resolves what the operation syncs to: a commit it names,
// else the revision the app was compared at (the branch head).
func (a *Argo) operationRevisions(app *app, op *objread.Reader) []string {
	requested := revisions(op.At("sync"))
	out := make([]string, len(app.sources))
	for i, src := range app.sources {
		switch {
		case i < len(requested) && fullSHA.MatchString(requested[i]):
			out[i] = requested[i]
		case i < len(app.syncRevisions) && app.syncRevisions[i] != "":
			out[i] = app.syncRevisions[i]
		default:
			if head, ok := a.opts.Git.Head(src.repo, src.ref); ok {
				out[i] = head
			} else if i < len(requested) && requested[i] != "" {
				out[i] = requested[i]
			} else {
				out[i] = NormalizeRef(src.ref)
			}
		}
	}
	return out
}

// syncResultResources reports what the sync did to each resource.
func (a *Argo) syncResultResources(app *app, phase, message string) []any {
	var out []any
	failedOne := false
	for _, it := range app.resourceList {
		r := objread.New(asMap(it))
		res := map[string]any{
			"group": r.Str("group"), "version": r.Str("version"), "kind": r.Str("kind"),
			"namespace": r.Str("namespace"), "name": r.Str("name"),
			"status": "Synced", "syncPhase": "Sync", "hookPhase": "Running",
			"message": strings.ToLower(r.Str("kind")) + "/" + r.Str("name") + " configured",
		}
		if ok, _ := r.Bool("requiresPruning"); ok {
			res["status"], res["message"] = "Pruned", "pruned"
		}
		if phase == "Failed" && message != msgTerminated && !failedOne {
			res["status"], res["message"] = "SyncFailed", message
			failedOne = true
		}
		out = append(out, res)
	}
	return out
}

// autoSync starts an automated sync when the policy asks for one: the app is
// OutOfSync, nothing runs, the windows allow it, and the revision was not
// attempted already (a repeat at the same revision is self-heal's, and only
// after a failed attempt's SyncError it never happens).
func (a *Argo) autoSync(ctx context.Context, app *app, now time.Time) (time.Duration, error) {
	if !app.automated || app.deleting || app.syncStatus != "OutOfSync" || len(app.syncRevisions) == 0 {
		return 0, nil
	}
	if completed(app.phase) && sameRevisions(app.lastSyncedRevisions, app.syncRevisions) {
		if app.phase != "Succeeded" {
			return 0, a.syncError(ctx, app, now)
		}
		if !app.selfHeal {
			return 0, nil
		}
		if wait := a.opts.SelfHealDelay - now.Sub(app.finishedAt); wait > 0 {
			return wait, nil
		}
	}
	if v := a.windows(app, now); !v.AutoOK {
		return a.opts.WindowRecheck, nil
	}
	sync := map[string]any{"prune": app.prune}
	if len(app.syncOptions) > 0 {
		sync["syncOptions"] = app.syncOptions
	}
	if app.multiSource {
		sync["revisions"] = toAny(app.syncRevisions)
	} else {
		sync["revision"] = app.syncRevisions[0]
	}
	retry := app.retry
	if retry == nil {
		retry = map[string]any{"limit": int64(5)}
	}
	op := map[string]any{"sync": sync, "initiatedBy": map[string]any{"automated": true}, "retry": retry}
	patch := map[string]any{
		"operation": op,
		"status":    map[string]any{"operationState": nil, "conditions": withoutCondition(app.conds, "SyncError")},
	}
	if _, err := mergePatch(ctx, a.client(app.key.namespace), app.key.name, argoManager, patch); err != nil {
		return 0, err
	}
	a.rec.event(ctx, app.obj, "Normal", "OperationStarted", fmt.Sprintf("Initiated automated sync to '%s'", strings.Join(app.syncRevisions, ",")))
	return immediately, nil
}

// syncError records why auto-sync does not retry a failed revision.
func (a *Argo) syncError(ctx context.Context, app *app, now time.Time) error {
	msg := fmt.Sprintf("Failed last sync attempt to %v: %s", app.syncRevisions, app.message)
	for _, c := range app.conds {
		if m := asMap(c); m["type"] == "SyncError" && m["message"] == msg {
			return nil
		}
	}
	conds := append(withoutCondition(app.conds, "SyncError"),
		map[string]any{"type": "SyncError", "message": msg, "lastTransitionTime": timestamp(now)})
	_, err := mergePatch(ctx, a.client(app.key.namespace), app.key.name, argoManager,
		map[string]any{"status": map[string]any{"conditions": conds}})
	return err
}
