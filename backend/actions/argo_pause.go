package actions

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/pause"
)

var automatedPath = []string{"spec", "syncPolicy", "automated"}

// planArgoPause switches auto-sync (or only self-heal) off and records the
// exact previous policy. Where the installed CRD knows automated.enabled
// (Argo CD 3.1+) it sets enabled=false (or selfHeal=false) and keeps the rest;
// on older CRDs, which would silently prune that field, it removes the whole
// automated block. Either way the annotation holds the block as it was.
func planArgoPause(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u := argocd.Convert(env.cluster.Context, obj)
	f := u.Argo
	mode := pause.ModeAutoSync
	if req.Kind == PauseSelfHeal {
		mode = pause.ModeSelfHeal
	}
	switch {
	case !f.AutomatedSet:
		return nil, nothingToDo("%s has a manual sync policy: there is no automation to pause", u.Key.Ref())
	case u.Pause != nil:
		return nil, nothingToDo("%s is already paused by %s since %s (%s); resume it first", u.Key.Ref(), u.Pause.By, u.Pause.At.Format(time.RFC3339), u.Pause.Reason)
	case mode == pause.ModeAutoSync && !f.AutoSync:
		return nil, nothingToDo("%s: auto-sync is already off (automated.enabled=false)", u.Key.Ref())
	case mode == pause.ModeSelfHeal && !f.AutoSync:
		return nil, nothingToDo("%s: auto-sync is off, so self-heal does nothing", u.Key.Ref())
	case mode == pause.ModeSelfHeal && !f.SelfHeal:
		return nil, nothingToDo("%s: self-heal is already off", u.Key.Ref())
	}
	automated := lookupMap(obj, automatedPath...)
	previous := compactJSON(automated)

	p := &Plan{gvr: argocd.Applications, Previous: previous, eventReason: "DriftdeckPause"}
	var ops patch
	ops.test(automated, automatedPath...)
	written := automatedPath
	switch {
	case mode == pause.ModeSelfHeal:
		written = append(automatedPath[:3:3], "selfHeal")
		ops.add(false, written...)
		p.Changes = append(p.Changes, "spec.syncPolicy.automated.selfHeal: true → false")
		p.Summary = "pause self-heal of " + u.Key.Ref() + " (auto-sync stays on)"
		p.eventVerb = "paused self-heal of"
	case env.knowsEnabled():
		written = append(automatedPath[:3:3], "enabled")
		ops.add(false, written...)
		p.Changes = append(p.Changes, "spec.syncPolicy.automated.enabled: "+describeBool(f.EnabledField)+" → false")
		p.Summary = "pause auto-sync and self-heal of " + u.Key.Ref()
		p.eventVerb = "paused auto-sync of"
	default:
		ops.remove(automatedPath...)
		why := "this Argo CD's CRD has no automated.enabled"
		if _, read := env.schemaKnows("applications.argoproj.io", "v1alpha1", "spec", "syncPolicy", "automated", "enabled"); !read {
			why = "the Application CRD may not be read to know whether it has automated.enabled; removing pauses on every version"
		}
		p.Changes = append(p.Changes, "spec.syncPolicy.automated: "+previous+" → (removed; "+why+")")
		p.Summary = "pause auto-sync and self-heal of " + u.Key.Ref()
		p.eventVerb = "paused auto-sync of"
	}
	ann := pauseAnnotations(env, req, mode, previous)
	hold, shown, record, err := planPauseHold(env, req, u, obj, written, sortedKeys(ann))
	if err != nil {
		return nil, err
	}
	if hold != nil {
		ann[pause.AnnotationOwnerHold] = record
		p.hold = hold
		if shown != nil {
			p.Also = []OtherWrite{*shown}
		}
		p.Warnings = append(p.Warnings, u.Owner+" regenerates this Application from its template and would revert the pause: driftdeck first adds an ignoreApplicationDifferences entry for it to the ApplicationSet (resume removes exactly that entry), then re-reads after the controller's reconcile and reports a revert")
	} else {
		p.Warnings = append(p.Warnings, ownerWarning(u.Owner)...)
	}
	ops.setAnnotations(annotationsOf(obj), ann)
	for _, k := range sortedKeys(ann) {
		p.Changes = append(p.Changes, "metadata.annotations."+k+": "+ann[k])
	}
	p.Patch = ops
	p.verify = func(after map[string]any) error {
		a := argocd.Convert(env.cluster.Context, after).Argo
		if mode == pause.ModeSelfHeal && a.SelfHeal {
			return fmt.Errorf("self-heal is still on after the write")
		}
		if mode == pause.ModeAutoSync && a.AutoSync {
			return fmt.Errorf("auto-sync is still on after the write: the field was pruned by the installed CRD schema or reverted")
		}
		return nil
	}
	return p, nil
}

// planArgoResume restores exactly the policy a pause replaced, provided the
// policy is still the way the pause left it.
func planArgoResume(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u := argocd.Convert(env.cluster.Context, obj)
	if u.Pause == nil {
		return planArgoEnableAutoSync(u, obj, req)
	}
	var previous map[string]any
	if err := json.Unmarshal([]byte(u.Pause.Previous), &previous); err != nil || previous == nil {
		return nil, refusef("%s: the recorded previous policy %q cannot be read; restore spec.syncPolicy.automated by hand", u.Key.Ref(), u.Pause.Previous)
	}
	current, present := lookup(obj, automatedPath...)
	left := pausedShape(previous, u.Pause.Mode, present)
	if !reflect.DeepEqual(normalizeJSON(current), normalizeJSON(left)) {
		return nil, refusef("%s: spec.syncPolicy.automated changed since the pause (now %s, the pause left %s); not restored — check who changed it, then restore by hand",
			u.Key.Ref(), compactJSON(current), compactJSON(left))
	}
	p := &Plan{gvr: argocd.Applications, Previous: u.Pause.Previous, eventReason: "DriftdeckResume", eventVerb: "resumed automation of"}
	var ops patch
	ops.swap(current, present, previous, automatedPath...)
	p.Changes = append(p.Changes, "spec.syncPolicy.automated: "+compactJSON(current)+" → "+u.Pause.Previous)
	ops.removeAnnotations(annotationsOf(obj), pause.Annotations)
	p.Changes = append(p.Changes, "metadata.annotations: driftdeck.io/paused-* removed")
	p.Patch = ops
	p.Summary = "resume " + u.Key.Ref() + ": restore the automation paused by " + u.Pause.By
	if u.Pause.Expired(env.now) {
		p.Warnings = append(p.Warnings, "the pause expired at "+u.Pause.Until.Format(time.RFC3339))
	}
	hold, shown, notes, err := planResumeHold(env, u, obj)
	if err != nil {
		return nil, err
	}
	p.Warnings = append(p.Warnings, notes...)
	if hold != nil {
		p.hold, p.Also = hold, []OtherWrite{*shown}
	} else {
		p.Warnings = append(p.Warnings, ownerWarning(u.Owner)...)
	}
	p.verify = func(after map[string]any) error {
		got, _ := lookup(after, automatedPath...)
		if !reflect.DeepEqual(normalizeJSON(got), normalizeJSON(previous)) {
			return fmt.Errorf("spec.syncPolicy.automated is %s after the write, not the recorded %s", compactJSON(got), u.Pause.Previous)
		}
		return nil
	}
	return p, nil
}

// pausedShape is the automated block as a pause of mode leaves it.
func pausedShape(previous map[string]any, mode string, present bool) any {
	if !present {
		return nil
	}
	out := deepCopyJSON(previous).(map[string]any)
	if mode == pause.ModeSelfHeal {
		out["selfHeal"] = false
	} else {
		out["enabled"] = false
	}
	return out
}

// normalizeJSON round-trips a value through JSON so numbers and nil maps
// compare alike.
func normalizeJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

func pauseAnnotations(env *planEnv, req Request, mode, previous string) map[string]string {
	ann := map[string]string{
		pause.AnnotationBy:       env.actor,
		pause.AnnotationReason:   req.Reason,
		pause.AnnotationAt:       env.now.UTC().Format(time.RFC3339),
		pause.AnnotationMode:     mode,
		pause.AnnotationPrevious: previous,
	}
	if !req.Until.IsZero() {
		ann[pause.AnnotationUntil] = req.Until.UTC().Format(time.RFC3339)
	}
	return ann
}

func ownerWarning(owner string) []string {
	if owner == "" {
		return nil
	}
	return []string{owner + " manages this object and may revert spec edits; driftdeck re-reads after the write and reports a revert"}
}

func describeBool(b *bool) string {
	if b == nil {
		return "(unset, means true)"
	}
	return fmt.Sprint(*b)
}
