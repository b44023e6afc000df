package flux

import (
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pause"
)

// NewUnit reads what every Flux-runtime object shares: metadata, suspend,
// interval, dependsOn, the reconcile request and its handling, conditions and
// revisions. The caller fills in the source and what is its kind's own.
func NewUnit(context string, engine model.Engine, kind string, r *objread.Reader) (*model.Unit, *model.FluxFacts) {
	u := model.UnitFromObject(context, engine, kind, r)
	ann := r.StringMap("metadata", "annotations")
	// A driftdeck pause (a suspend it made) says who, why and what resume restores.
	u.Pause, u.ReadErrors = pause.Read(ann)
	spec, st := r.At("spec"), r.At("status")
	f := &model.FluxFacts{
		RequestedAt:   ann[AnnotationRequestedAt],
		LastHandledAt: st.Str("lastHandledReconcileAt"),
		Conditions:    ReadConditions(st),
		LastAttempted: st.Str("lastAttemptedRevision"),
		ObservedGen:   st.Int("observedGeneration"),
		Interval:      spec.Str("interval"),
	}
	f.Suspended, f.SuspendSet = spec.Bool("suspend")
	for _, d := range spec.Objects("dependsOn") {
		ns := d.Str("namespace")
		if ns == "" {
			ns = u.Key.Namespace
		}
		f.DependsOn = append(f.DependsOn, ns+"/"+d.Str("name"))
		u.Parents = append(u.Parents, model.Key{Context: u.Key.Context, Engine: u.Key.Engine, Namespace: ns, Name: d.Str("name")})
	}
	u.LastChange = model.LatestCondition(f.Conditions)
	return u, f
}

// ReadSource reads a sourceRef-shaped object; the namespace defaults to the
// object's own, as the controllers do.
func ReadSource(ref *objread.Reader, namespace string) model.Ref {
	s := model.Ref{Kind: ref.Str("kind"), Namespace: ref.Str("namespace"), Name: ref.Str("name")}
	if s.Namespace == "" && s.Name != "" {
		s.Namespace = namespace
	}
	return s
}

// ReadConditions reads status.conditions.
func ReadConditions(st *objread.Reader) []model.Condition {
	var out []model.Condition
	for _, c := range st.Objects("conditions") {
		out = append(out, model.Condition{
			Type: c.Str("type"), Status: c.Str("status"), Reason: c.Str("reason"),
			Message: c.Str("message"), Since: c.Time("lastTransitionTime"),
		})
	}
	return out
}

// Finish records what could not be read.
func Finish(u *model.Unit, r *objread.Reader) {
	u.ReadErrors = append(u.ReadErrors, r.Errors()...)
	if u.Key.Name == "" {
		u.ReadErrors = append(u.ReadErrors, "metadata.name: missing")
	}
}

// Condition returns the condition of a type, or nil.
func Condition(cs []model.Condition, typ string) *model.Condition {
	for i := range cs {
		if cs[i].Type == typ {
			return &cs[i]
		}
	}
	return nil
}

// Is reports whether a condition is present with the given status.
func Is(c *model.Condition, status string) bool { return c != nil && c.Status == status }

// RequestPending reports whether a reconcile request was made that the
// controller has not handled yet.
func RequestPending(f *model.FluxFacts) bool {
	return f.RequestedAt != "" && f.RequestedAt != f.LastHandledAt
}

// ReadHealth maps the Ready/Reconciling/Stalled conditions onto health.
func ReadHealth(u *model.Unit, f *model.FluxFacts) {
	ready := Condition(f.Conditions, "Ready")
	switch {
	case Is(Condition(f.Conditions, "Stalled"), "True"):
		u.Health, u.HealthNative = model.Degraded, "Stalled"
	case Is(Condition(f.Conditions, "Reconciling"), "True") && !Is(ready, "False"):
		u.Health, u.HealthNative = model.Progressing, "Reconciling"
	case Is(ready, "True"):
		u.Health, u.HealthNative = model.Healthy, "Ready"
	case Is(ready, "False"):
		u.Health, u.HealthNative = model.Degraded, "NotReady: "+ready.Reason
	case Is(ready, "Unknown"):
		u.Health, u.HealthNative = model.Progressing, "Unknown: "+ready.Reason
	}
}

// Rule words shared by the Flux engines.
const (
	ruleStalled = "the Stalled condition is True: the controller will not retry until the spec changes"
)

// ClassifyRun derives the run state of a Flux-runtime object from its
// conditions (kustomize-controller and helm-controller semantics, which
// tofu-controller follows for these). Build and apply failures never reach
// Stalled: they stay Ready=False with Reconciling=ProgressingWithRetry and
// are retried, so a failure that persists is stuck by time (Persisting).
// stalledRule, when set, replaces the generic rule for a Stalled object.
func ClassifyRun(u *model.Unit, f *model.FluxFacts, stalledRule string) {
	set := func(s model.RunState, since time.Time, reason string) {
		u.Observed, u.Run, u.RunSince, u.RunReason = s, s, since, reason
	}
	ready := Condition(f.Conditions, "Ready")
	reconciling := Condition(f.Conditions, "Reconciling")
	stalled := Condition(f.Conditions, "Stalled")
	switch {
	case f.Suspended:
		set(model.Idle, time.Time{}, "suspended: the controller applies nothing until resumed")
	case Is(stalled, "True"):
		set(model.Stuck, stalled.Since, "Stalled: "+stalled.Reason+": "+model.FirstLine(stalled.Message))
		u.StuckRule = ruleStalled
		if stalledRule != "" {
			u.StuckRule = stalledRule
		}
	case Is(ready, "False") && ready.Reason == ReasonDependencyNotReady:
		set(model.Running, ready.Since, ready.Reason+": "+model.FirstLine(ready.Message))
		u.Persisting = "waiting for a dependency (" + strings.Join(f.DependsOn, ", ") + ")"
	case Is(ready, "False") && ready.Reason == ReasonArtifactFailed:
		set(model.Running, ready.Since, ready.Reason+": "+model.FirstLine(ready.Message))
		u.Persisting = "waiting for the source " + f.Source.String()
	case Is(ready, "False"):
		since := ready.Since
		if Is(reconciling, "True") && !reconciling.Since.IsZero() {
			since = reconciling.Since
		}
		set(model.Failed, since, ready.Reason+": "+model.FirstLine(ready.Message))
		u.Persisting = "failing (" + ready.Reason + ")"
		if f.LastAttempted != "" {
			u.Persisting += " on revision " + f.LastAttempted
		}
	case Is(reconciling, "True") || Is(ready, "Unknown"):
		c := reconciling
		if !Is(c, "True") {
			c = ready
		}
		set(model.Running, c.Since, c.Reason+": "+model.FirstLine(c.Message))
	case RequestPending(f):
		// The request carries no time: the store dates it from first sight.
		set(model.Running, time.Time{}, "reconcile requested ("+f.RequestedAt+"), not handled yet")
		u.Queued = true
	case ready == nil:
		set(model.Running, time.Time{}, "not reconciled by the controller yet")
		u.Queued = true
	default:
		set(model.Idle, ready.Since, "")
	}
}

// ReadAutomation says what the controller does on its own: paused (a
// suspend driftdeck made and recorded), suspended (by somebody else), or
// every interval (Flux re-applies what it manages at each interval, so live
// drift is corrected when selfHeal is true).
func ReadAutomation(u *model.Unit, f *model.FluxFacts, selfHeal bool) {
	switch {
	case PausedByDriftdeck(u, f):
		u.Automation, u.AutomationNative = model.Paused, PausedNative
	case f.Suspended:
		u.Automation, u.AutomationNative = model.Suspended, "suspend: true"
	case selfHeal:
		u.Automation, u.AutomationNative = model.SelfHeal, "every "+orUnset(f.Interval)
	default:
		u.Automation, u.AutomationNative = model.Auto, "every "+orUnset(f.Interval)
	}
}

// PausedNative is the controller's own word for a driftdeck pause.
const PausedNative = "suspend: true (paused by driftdeck)"

// PausedByDriftdeck: the unit is suspended and carries driftdeck's pause
// record. A record on a unit somebody resumed is no longer in force (the
// screens call it reverted); a suspend without one is somebody else's.
func PausedByDriftdeck(u *model.Unit, f *model.FluxFacts) bool {
	return f.Suspended && u.Pause != nil
}

func orUnset(s string) string {
	if s == "" {
		return "(no interval)"
	}
	return s
}
