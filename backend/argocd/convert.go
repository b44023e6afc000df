package argocd

import (
	"fmt"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pause"
)

// Convert turns an Application object into a unit of the given context. It
// never fails: what it cannot read is listed in the unit's ReadErrors.
func Convert(context string, obj map[string]any) *model.Unit {
	r := objread.New(obj)
	u := model.UnitFromObject(context, model.EngineArgoCD, "Application", r)
	u.Project = r.Str("spec", "project")
	ann := r.StringMap("metadata", "annotations")
	f := &model.ArgoFacts{RefreshPending: ann[AnnotationRefresh]}
	u.Argo = f

	readSource(r, u, f)
	readSync(r, u)
	readHealth(r, u)
	readPolicy(r, u, f)
	readOperation(r, u, f)
	u.Children = readResources(r, context, f)
	f.Conditions = readConditions(r.At("status"), "conditions")
	f.ReconciledAt = r.Time("status", "reconciledAt")
	for _, h := range r.Objects("status", "history") {
		f.HistoryIDs = append(f.HistoryIDs, h.Int("id"))
	}
	u.Owner = owner(r, ann)
	u.Parents = ownerSets(r, context, u.Key.Namespace)

	var pauseErrs []string
	u.Pause, pauseErrs = pause.Read(ann)
	if pausedByRecord(u.Pause, f) {
		u.Automation = model.Paused
	}
	classifyRun(u, f)
	u.LastChange = latest(f.ReconciledAt, f.StartedAt, f.FinishedAt)
	u.ReadErrors = append(r.Errors(), pauseErrs...)
	if u.Key.Name == "" {
		u.ReadErrors = append(u.ReadErrors, "metadata.name: missing")
	}
	return u
}

func readSource(r *objread.Reader, u *model.Unit, f *model.ArgoFacts) {
	if srcs := r.Objects("spec", "sources"); len(srcs) > 0 {
		f.MultiSource = true
		var revs []string
		for _, s := range srcs {
			revs = append(revs, orHEAD(s.Str("targetRevision")))
		}
		f.RepoURL = srcs[0].Str("repoURL")
		f.Path = srcs[0].Str("path")
		f.TargetRevision = strings.Join(revs, ",")
	} else {
		f.RepoURL = r.Str("spec", "source", "repoURL")
		f.Path = r.Str("spec", "source", "path")
		f.TargetRevision = orHEAD(r.Str("spec", "source", "targetRevision"))
	}
	u.Desired = f.TargetRevision
	f.DestServer = r.Str("spec", "destination", "server")
	f.DestName = r.Str("spec", "destination", "name")
	f.DestNamespace = r.Str("spec", "destination", "namespace")
	if home := r.Str("status", "controllerNamespace"); home != "" && home != u.Key.Namespace {
		f.OutsideControlPlane = true
	}
	if revs := r.Slice("status", "sync", "revisions"); len(revs) > 0 {
		var out []string
		for _, v := range revs {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		u.Applied = strings.Join(out, ",")
	} else {
		u.Applied = r.Str("status", "sync", "revision")
	}
}

func orHEAD(s string) string {
	if s == "" {
		return "HEAD"
	}
	return s
}

func readSync(r *objread.Reader, u *model.Unit) {
	u.SyncNative = r.Str("status", "sync", "status")
	switch u.SyncNative {
	case "Synced":
		u.Sync = model.InSync
	case "OutOfSync":
		u.Sync = model.Drifted
	default:
		u.Sync = model.SyncUnknown
	}
}

func readHealth(r *objread.Reader, u *model.Unit) {
	u.HealthNative = r.Str("status", "health", "status")
	switch u.HealthNative {
	case "Healthy":
		u.Health = model.Healthy
	case "Progressing":
		u.Health = model.Progressing
	case "Degraded":
		u.Health = model.Degraded
	case "Suspended":
		u.Health = model.HealthSuspended
	case "Missing":
		u.Health = model.Missing
	default:
		u.Health = model.HealthUnknown
	}
}

func readPolicy(r *objread.Reader, u *model.Unit, f *model.ArgoFacts) {
	auto := r.At("spec", "syncPolicy", "automated")
	f.AutomatedSet = r.Has("spec", "syncPolicy", "automated")
	if !f.AutomatedSet {
		u.Automation, u.AutomationNative = model.Manual, "manual"
		return
	}
	if v, ok := auto.Bool("enabled"); ok {
		f.EnabledField = &v
	}
	f.SelfHeal, _ = auto.Bool("selfHeal")
	f.Prune, _ = auto.Bool("prune")
	f.AutoSync = f.EnabledField == nil || *f.EnabledField
	words := []string{"automated"}
	if f.EnabledField != nil && !*f.EnabledField {
		words = append(words, "enabled=false")
	}
	if f.Prune {
		words = append(words, "prune")
	}
	if f.SelfHeal {
		words = append(words, "selfHeal")
	}
	u.AutomationNative = strings.Join(words, " ")
	switch {
	case !f.AutoSync:
		u.Automation = model.Suspended
	case f.SelfHeal:
		u.Automation = model.SelfHeal
	default:
		u.Automation = model.Auto
	}
}

func readOperation(r *objread.Reader, u *model.Unit, f *model.ArgoFacts) {
	f.OperationSet = r.Has("operation")
	op := r.At("status", "operationState")
	f.Phase = op.Str("phase")
	f.PhaseMessage = op.Str("message")
	f.StartedAt = op.Time("startedAt")
	f.FinishedAt = op.Time("finishedAt")
	f.RetryCount = op.Int("retryCount")
	readStep(op, f)
}

// readResources counts the resources by sync status and returns the
// Applications among them: the children of an app of apps.
func readResources(r *objread.Reader, context string, f *model.ArgoFacts) []model.Key {
	var children []model.Key
	var waves bool
	for _, it := range r.Objects("status", "resources") {
		stepWave(it, f.Step, &waves)
		if isApplication(it.Str("group"), it.Str("kind")) && it.Str("name") != "" {
			children = append(children, model.Key{Context: context, Engine: model.EngineArgoCD, Namespace: it.Str("namespace"), Name: it.Str("name")})
		}
		switch it.Str("status") {
		case "Synced":
			f.Resources.Synced++
		case "OutOfSync":
			f.Resources.OutOfSync++
		default:
			f.Resources.Other++
		}
		if ok, _ := it.Bool("requiresPruning"); ok {
			f.PruneRequired = true
		}
	}
	return children
}

func isApplication(group, kind string) bool { return group == "argoproj.io" && kind == "Application" }

// ownerSets are the ApplicationSets that own the Application, as the
// ApplicationSet controller sets its owner reference (same namespace).
func ownerSets(r *objread.Reader, context, namespace string) []model.Key {
	var out []model.Key
	for _, ref := range r.Objects("metadata", "ownerReferences") {
		if ref.Str("kind") == "ApplicationSet" && strings.HasPrefix(ref.Str("apiVersion"), "argoproj.io/") && ref.Str("name") != "" {
			out = append(out, model.Key{Context: context, Engine: model.EngineApplicationSet, Namespace: namespace, Name: ref.Str("name")})
		}
	}
	return out
}

func readConditions(r *objread.Reader, field string) []model.Condition {
	var out []model.Condition
	for _, c := range r.Objects(field) {
		out = append(out, model.Condition{
			Type:    c.Str("type"),
			Status:  c.Str("status"),
			Reason:  c.Str("reason"),
			Message: c.Str("message"),
			Since:   c.Time("lastTransitionTime"),
		})
	}
	return out
}

// owner names what reverts spec edits: an owning ApplicationSet, or the parent
// application (app of apps) that tracks this one.
func owner(r *objread.Reader, ann map[string]string) string {
	for _, ref := range r.Objects("metadata", "ownerReferences") {
		if ref.Str("kind") == "ApplicationSet" {
			return "ApplicationSet/" + ref.Str("name")
		}
	}
	if id := ann[AnnotationTrackingID]; id != "" {
		if parent, _, ok := strings.Cut(id, ":"); ok && parent != "" {
			return "Application/" + parent
		}
	}
	return ""
}

// classifyRun derives the run state from the operation and conditions.
func classifyRun(u *model.Unit, f *model.ArgoFacts) {
	set := func(s model.RunState, since time.Time, reason string) {
		u.Observed, u.Run, u.RunSince, u.RunReason = s, s, since, reason
	}
	switch {
	case f.Phase == "Running" && !f.OperationSet:
		set(model.Stuck, f.StartedAt, "operation Running but no operation requested")
		u.StuckRule = "operationState.phase is Running while no operation is set (a zombie the controller will not finish); terminate cannot reach it: start a new sync"
	case f.Phase == "Running" && strings.Contains(f.PhaseMessage, "blocked by sync window"):
		set(model.BlockedByWindow, f.StartedAt, "sync queued: "+f.PhaseMessage)
		u.StuckRule = "the controller holds the operation until the project's sync windows allow it"
	case f.Phase == "Running" || f.Phase == "Terminating":
		reason := "sync " + strings.ToLower(f.Phase)
		if f.Step != nil {
			reason += " (" + f.Step.String() + ")"
		}
		if f.PhaseMessage != "" {
			reason += ": " + f.PhaseMessage
		}
		if f.RetryCount > 0 {
			reason += fmt.Sprintf(" (retry %d)", f.RetryCount)
		}
		set(model.Running, f.StartedAt, reason)
		if strings.Contains(strings.ToLower(f.PhaseMessage), "prun") && strings.Contains(strings.ToLower(f.PhaseMessage), "confirm") {
			set(model.AwaitingApproval, f.StartedAt, "sync waits for prune confirmation: "+f.PhaseMessage)
		}
	case f.OperationSet && (f.Phase == "" || completed(f.Phase)):
		// Requested but not picked up: the controller has not written an
		// operationState for this operation yet.
		// The request carries no time: the store dates it from when it was first seen.
		set(model.Running, time.Time{}, "sync requested, not started by the controller yet")
		u.Queued = true
	case f.Phase == "Failed" || f.Phase == "Error":
		set(model.Failed, f.FinishedAt, "last sync "+strings.ToLower(f.Phase)+": "+model.FirstLine(f.PhaseMessage))
	case errorCondition(f.Conditions) != nil:
		c := errorCondition(f.Conditions)
		set(model.Failed, c.Since, c.Type+": "+model.FirstLine(c.Message))
	case u.Sync == model.Drifted && !f.AutoSync:
		// Argo CD does not record since when: the store dates it from first sight.
		set(model.AwaitingApproval, time.Time{}, "OutOfSync and auto-sync is off: waits for a manual sync")
	default:
		set(model.Idle, f.FinishedAt, "")
	}
}

// pausedByRecord reports whether a driftdeck pause is in force: the record is
// there and the policy is still the way the pause left it.
func pausedByRecord(p *model.PauseRecord, f *model.ArgoFacts) bool {
	if p == nil {
		return false
	}
	if p.Mode == pause.ModeSelfHeal {
		return !f.SelfHeal
	}
	return !f.AutoSync
}

func completed(phase string) bool {
	return phase == "Succeeded" || phase == "Failed" || phase == "Error"
}

func errorCondition(cs []model.Condition) *model.Condition {
	for i, c := range cs {
		if strings.HasSuffix(c.Type, "Error") {
			return &cs[i]
		}
	}
	return nil
}

func latest(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}
