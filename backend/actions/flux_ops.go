package actions

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// fluxFieldManager is the field manager of the flux CLI and of Flux's own
// kubectl examples. kustomize-controller, applying a parent Kustomization,
// takes over (and so removes) the fields of managers named kubectl* or
// before-first-apply; this one it leaves alone, so a suspend or a request
// written under it stays.
const fluxFieldManager = "flux-client-side-apply"

// parentLabel names the Kustomization that applies an object.
const parentLabel = "kustomize.toolkit.fluxcd.io/name"

// fluxUnit converts a Flux-runtime object (Kustomization, HelmRelease or
// Terraform) and returns its shared Flux facts.
func fluxUnit(env *planEnv, engine model.Engine, obj map[string]any) (*model.Unit, *model.FluxFacts) {
	switch engine {
	case model.EngineHelmRelease:
		u := flux.ConvertHelmRelease(env.cluster.Context, obj)
		return u, u.Flux
	case model.EngineTerraform:
		u := tofu.Convert(env.cluster.Context, obj)
		return u, &u.Tofu.FluxFacts
	}
	u := flux.ConvertKustomization(env.cluster.Context, obj)
	return u, u.Flux
}

// requestToken is a new reconcile request value, as the flux CLI makes it.
func requestToken(now time.Time) string { return now.UTC().Format(time.RFC3339Nano) }

// planFluxPause suspends the unit (spec.suspend: true) and records what
// spec.suspend was. A unit suspended already, by anybody, is left alone: a
// freeze skips it and its thaw therefore leaves it suspended.
func planFluxPause(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u, f := fluxUnit(env, req.Key.Engine, obj)
	switch {
	case u.Pause != nil:
		return nil, nothingToDo("%s is already paused by %s since %s (%s)", u.Key.Ref(), u.Pause.By, u.Pause.At.Format(time.RFC3339), u.Pause.Reason)
	case f.Suspended:
		return nil, nothingToDo("%s is already suspended (spec.suspend: true, not by driftdeck): nothing to pause (a resume by name ends that suspend, as flux resume does)", u.Key.Ref())
	}
	p := flagPause(env, obj, req, "suspend", pause.ModeSuspend)
	p.fieldManager, p.eventVerb = fluxFieldManager, "suspended"
	p.Summary = "suspend " + u.Key.Ref() + ": the controller reconciles nothing until resumed"
	p.Warnings = parentWarning(u)
	return p, nil
}

// planFluxResume restores spec.suspend as the driftdeck pause found it,
// provided it still is as the pause left it (true).
func planFluxResume(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u, f := fluxUnit(env, req.Key.Engine, obj)
	if u.Pause == nil {
		switch {
		case f.Suspended && req.Single:
			return planFluxEndSuspend(u, obj), nil
		case f.Suspended:
			return nil, nothingToDo("%s is not paused by driftdeck (no %s annotation); it is suspended by somebody else (spec.suspend: true), and a resume of many leaves it so: resume it by name", u.Key.Ref(), pause.AnnotationPrevious)
		}
		return nil, nothingToDo("%s is not paused by driftdeck (no %s annotation)", u.Key.Ref(), pause.AnnotationPrevious)
	}
	var previous any
	if err := json.Unmarshal([]byte(u.Pause.Previous), &previous); err != nil {
		return nil, refusef("%s: the recorded previous spec.suspend %q cannot be read; restore it by hand", u.Key.Ref(), u.Pause.Previous)
	}
	if !f.Suspended {
		return nil, refusef("%s: spec.suspend was changed since the pause by %s (it is no longer true); not restored — check who changed it", u.Key.Ref(), u.Pause.By)
	}
	p := flagResume(obj, u, "suspend", previous)
	p.fieldManager = fluxFieldManager
	if u.Pause.Expired(env.now) {
		p.Warnings = append(p.Warnings, "the pause expired at "+u.Pause.Until.Format(time.RFC3339))
	}
	p.Warnings = append(p.Warnings, parentWarning(u)...)
	return p, nil
}

// planFluxRefresh requests a reconcile now: a new requestedAt token,
// handled when status.lastHandledReconcileAt shows it. A HelmRelease force
// or reset writes forceAt or resetAt with the same token, which
// helm-controller requires. With req.WithSource the unit's source is
// requested first.
func planFluxRefresh(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u, f := fluxUnit(env, req.Key.Engine, obj)
	if f.Suspended {
		return nil, nothingToDo("%s is suspended: the controller would mark the request handled and apply nothing; resume it first", u.Key.Ref())
	}
	if req.Kind == Reset && f.Helm != nil && !hasFailures(f.Helm) {
		return nil, nothingToDo("%s has no failures to reset", u.Key.Ref())
	}
	token := requestToken(env.now)
	set := map[string]string{flux.AnnotationRequestedAt: token}
	p := &Plan{fieldManager: fluxFieldManager, token: token, eventReason: "DriftdeckReconcile", eventVerb: "requested a reconcile of"}
	p.Summary = "reconcile " + u.Key.Ref() + " now"
	p.Changes = []string{"metadata.annotations." + flux.AnnotationRequestedAt + ": " + orWord(f.RequestedAt, "(unset)") + " → " + token}
	switch req.Kind {
	case Force:
		set[flux.AnnotationForceAt] = token
		p.Summary = "force a one-off install or upgrade of " + u.Key.Ref() + " now"
		p.Changes = append(p.Changes, "metadata.annotations."+flux.AnnotationForceAt+": "+orWord(f.Helm.ForceAt, "(unset)")+" → "+token)
		p.eventReason, p.eventVerb = "DriftdeckForce", "forced an upgrade of"
	case Reset:
		set[flux.AnnotationResetAt] = token
		p.Summary = "reset the failure counts of " + u.Key.Ref() + " (" + failureWords(f.Helm) + ") and reconcile it now"
		p.Changes = append(p.Changes, "metadata.annotations."+flux.AnnotationResetAt+": "+orWord(f.Helm.ResetAt, "(unset)")+" → "+token)
		p.eventReason, p.eventVerb = "DriftdeckReset", "reset the failures of"
	}
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.setAnnotations(annotationsOf(obj), set)
	p.Patch = ops
	if req.WithSource {
		sources, err := env.sourceRequests(u, f, obj, token)
		if err != nil {
			return nil, err
		}
		// The unit's own lines name it too, or they read as the source's.
		var first []string
		for _, s := range sources {
			w := s.write
			w.change = s.change
			p.before = append(p.before, w)
			first = append(first, s.change)
		}
		for i, c := range p.Changes {
			p.Changes[i] = u.Key.Ref() + ": " + c
		}
		p.Changes = append(first, p.Changes...)
		p.Summary += ", its source first"
	}
	if u.Tofu != nil && u.Tofu.PendingPlan != "" && u.Run == model.AwaitingApproval {
		p.Warnings = append(p.Warnings, "plan "+u.Tofu.PendingPlan+" waits for approval: tofu-controller does nothing else until it is approved or replanned")
	}
	p.verify = func(after map[string]any) error {
		ann := annotationsOf(after)
		for k, v := range set {
			if ann[k] != v && lookupString(after, "status", "lastHandledReconcileAt") != token {
				return fmt.Errorf("%s is not on the object after the write", k)
			}
		}
		return nil
	}
	p.landed = requestLanded(obj, flux.AnnotationRequestedAt, token, []string{"status", "lastHandledReconcileAt"})
	return p, nil
}

func hasFailures(h *model.HelmFacts) bool {
	return h.Failures > 0 || h.InstallFailures > 0 || h.UpgradeFailures > 0 || h.RetriesExhausted
}

func failureWords(h *model.HelmFacts) string {
	return fmt.Sprintf("failures %d, install failures %d, upgrade failures %d", h.Failures, h.InstallFailures, h.UpgradeFailures)
}

// parentWarning names the Kustomization that applies the object: when its
// source sets spec.suspend, its next apply writes it back.
func parentWarning(u *model.Unit) []string {
	name := u.Labels.Get(parentLabel)
	if name == "" {
		return nil
	}
	ns := u.Labels.Get("kustomize.toolkit.fluxcd.io/namespace")
	return []string{"Kustomization " + ns + "/" + name + " applies this object: if its source sets spec.suspend, its next apply writes that value back"}
}
