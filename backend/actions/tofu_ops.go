package actions

import (
	"fmt"
	"strings"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// planTofuApprove sets spec.approvePlan to the full id of the pending plan,
// checked on the object the user saw: the plan must be pending, planned from
// the current generation (the approval itself bumps it) and, when the
// request names the plan reviewed, be exactly that plan. tofu-controller
// also takes a prefix of the id, which would approve later plans of the same
// commit as well: a prefix is refused, never written.
func planTofuApprove(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u := tofu.Convert(env.cluster.Context, obj)
	f := u.Tofu
	if err := approvable(u, req.Revision); err != nil {
		return nil, err
	}
	pending := f.PendingPlan
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.test(u.Generation, "metadata", "generation")
	ops.test(pending, "status", "plan", "pending")
	if gen, ok := lookup(obj, "status", "lastPlannedGeneration"); ok {
		ops.test(gen, "status", "lastPlannedGeneration")
	}
	current, _ := lookup(obj, "spec", "approvePlan")
	ops.test(current, "spec", "approvePlan")
	ops.add(pending, "spec", "approvePlan")
	p := &Plan{Patch: ops, fieldManager: fluxFieldManager, eventReason: "DriftdeckApprove", eventVerb: "approved plan " + pending + " of"}
	p.Summary = fmt.Sprintf("approve plan %s of %s (planned from %s at generation %d)", pending, u.Key.Ref(), orWord(f.LastPlannedRevision, "an unknown revision"), f.LastPlannedGen)
	p.Changes = []string{"spec.approvePlan: " + orWord(f.ApprovePlan, "(unset)") + " → " + pending}
	if f.DestroyPlan {
		p.Warnings = append(p.Warnings, "plan "+pending+" is a DESTROY plan: applying it deletes the resources it manages")
	}
	if f.Suspended {
		p.Warnings = append(p.Warnings, u.Key.Ref()+" is suspended: the plan is applied once it is resumed")
	}
	p.Warnings = append(p.Warnings, "tofu-controller plans once more before applying and applies only when that plan has the same id; otherwise the new plan waits for approval")
	p.verify = func(after map[string]any) error {
		if got := lookupString(after, "spec", "approvePlan"); got != pending {
			return fmt.Errorf("spec.approvePlan is %q after the write, not %s", got, pending)
		}
		return nil
	}
	return p, nil
}

// approvable says why a Terraform's pending plan cannot be approved now,
// reviewed being the plan id the user saw ("" for whatever is pending).
func approvable(u *model.Unit, reviewed string) error {
	f := u.Tofu
	ref := u.Key.Ref()
	switch {
	case f.PendingPlan == "" && reviewed != "" && reviewed == f.LastAppliedPlan:
		return refusef("%s: plan %s is already applied", ref, reviewed)
	case f.PendingPlan == "":
		return refusef("%s: no plan is pending (status.plan.pending is empty); last applied: %s", ref, orWord(f.LastAppliedPlan, "none"))
	case reviewed != "" && reviewed != f.PendingPlan && strings.HasPrefix(f.PendingPlan, reviewed):
		return refusef("%s: %q is only a prefix of the pending plan %s; driftdeck approves only the full id (a prefix would also approve later plans of the same commit)", ref, reviewed, f.PendingPlan)
	case reviewed != "" && reviewed != f.PendingPlan:
		return refusef("%s: the pending plan is now %s, not the %s you reviewed: review it again", ref, f.PendingPlan, reviewed)
	case f.PlanStale:
		return refusef("%s: plan %s is stale: planned at generation %d, the spec is at %d; tofu-controller discards it and plans again", ref, f.PendingPlan, f.LastPlannedGen, u.Generation)
	case f.PlanOnly:
		return refusef("%s runs plan-only (spec.planOnly): its plans are never applied", ref)
	case f.Force || f.ApprovePlan == tofu.ApproveAuto:
		return refusef("%s applies every plan on its own (%s): nothing waits for approval", ref, approvalMode(f))
	case f.ApprovePlan == f.PendingPlan:
		return nothingToDo("%s: plan %s is already approved", ref, f.PendingPlan)
	}
	return nil
}

func approvalMode(f *model.TofuFacts) string {
	if f.Force {
		return "spec.force: true"
	}
	return "spec.approvePlan: " + f.ApprovePlan
}

// planTofuReplan discards the pending plan the way tofu-controller honours:
// spec.approvePlan = "re" + the pending id (its "replan" form, which
// approves nothing, and replaces an approval of the old plan). The spec
// change moves the generation past status.lastPlannedGeneration, so the
// controller drops the pending plan and plans again; requestedAt makes it
// do so now.
func planTofuReplan(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u := tofu.Convert(env.cluster.Context, obj)
	f := u.Tofu
	switch {
	case f.Suspended:
		return nil, refusef("%s is suspended: nothing is planned until it is resumed", u.Key.Ref())
	case f.PendingPlan == "":
		return nil, nothingToDo("%s: no plan is pending; refresh requests a new plan run", u.Key.Ref())
	case f.Force || f.ApprovePlan == tofu.ApproveAuto:
		return nil, refusef("%s applies every plan on its own (%s): there is no pending plan to discard", u.Key.Ref(), approvalMode(f))
	}
	if req.Revision != "" && req.Revision != f.PendingPlan {
		return nil, refusef("%s: the pending plan is now %s, not the %s you reviewed", u.Key.Ref(), f.PendingPlan, req.Revision)
	}
	value := "re" + f.PendingPlan
	token := requestToken(env.now)
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.test(f.PendingPlan, "status", "plan", "pending")
	current, _ := lookup(obj, "spec", "approvePlan")
	ops.test(current, "spec", "approvePlan")
	ops.add(value, "spec", "approvePlan")
	ops.setAnnotations(annotationsOf(obj), map[string]string{flux.AnnotationRequestedAt: token})
	p := &Plan{Patch: ops, fieldManager: fluxFieldManager, token: token, eventReason: "DriftdeckReplan", eventVerb: "discarded plan " + f.PendingPlan + " of"}
	p.Summary = "discard plan " + f.PendingPlan + " of " + u.Key.Ref() + " and plan again now"
	p.Changes = []string{
		"spec.approvePlan: " + orWord(f.ApprovePlan, "(unset)") + " → " + value,
		"metadata.annotations." + flux.AnnotationRequestedAt + ": " + orWord(f.RequestedAt, "(unset)") + " → " + token,
	}
	if f.ApprovePlan == f.PendingPlan {
		p.Warnings = append(p.Warnings, "plan "+f.PendingPlan+" was approved and not applied yet: the approval is withdrawn")
	}
	if f.LastPlannedGen == 0 {
		p.Warnings = append(p.Warnings, "status.lastPlannedGeneration is not set: a tofu-controller that does not record it plans again only when the source revision changes")
	}
	p.Warnings = append(p.Warnings, "the new plan waits for approval again (spec.approvePlan stays manual)")
	p.verify = func(after map[string]any) error {
		if got := lookupString(after, "spec", "approvePlan"); got != value {
			return fmt.Errorf("spec.approvePlan is %q after the write, not %s", got, value)
		}
		return nil
	}
	return p, nil
}

// planTofuForceUnlock has tofu-controller break the held state lock at its
// next run: it unlocks when spec.tfstate.forceUnlock is yes and
// lockIdentifier equals status.lock.pending (or with forceUnlock auto, any
// lock), as `tfctl force-unlock` sets them. The request names the lock the
// user saw; another lock held by then is refused.
func planTofuForceUnlock(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u := tofu.Convert(env.cluster.Context, obj)
	f := u.Tofu
	lock := f.LockPending
	switch {
	case lock == "":
		return nil, refusef("%s holds no state lock (status.lock.pending is empty)", u.Key.Ref())
	case req.LockID != "" && req.LockID != lock:
		return nil, refusef("%s: the held lock is now %s, not the %s you saw: look again", u.Key.Ref(), lock, req.LockID)
	case f.Suspended:
		return nil, refusef("%s is suspended: tofu-controller unlocks only while reconciling; resume it first", u.Key.Ref())
	}
	mode := "yes"
	if f.ForceUnlock == "auto" {
		mode = "auto" // already unlocks every held lock; tfctl keeps it too
	}
	token := requestToken(env.now)
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.test(lock, "status", "lock", "pending")
	tfstate, present := lookup(obj, "spec", "tfstate")
	previous := "null"
	if present {
		previous = compactJSON(tfstate)
		cur, _ := lookup(obj, "spec", "tfstate", "forceUnlock")
		ops.test(cur, "spec", "tfstate", "forceUnlock")
		ops.add(mode, "spec", "tfstate", "forceUnlock")
		id, _ := lookup(obj, "spec", "tfstate", "lockIdentifier")
		ops.test(id, "spec", "tfstate", "lockIdentifier")
		ops.add(lock, "spec", "tfstate", "lockIdentifier")
	} else {
		ops.test(nil, "spec", "tfstate")
		ops.add(map[string]any{"forceUnlock": mode, "lockIdentifier": lock}, "spec", "tfstate")
	}
	ops.setAnnotations(annotationsOf(obj), map[string]string{flux.AnnotationRequestedAt: token})
	p := &Plan{Patch: ops, Previous: previous, fieldManager: fluxFieldManager, token: token, eventReason: "DriftdeckForceUnlock", eventVerb: "force-unlocked state lock " + lock + " of"}
	p.Summary = "force-unlock state lock " + lock + " of " + u.Key.Ref() + ": tofu-controller breaks it at its next run (terraform force-unlock " + lock + ")"
	p.Changes = []string{
		"spec.tfstate.forceUnlock: " + orWord(f.ForceUnlock, "(unset)") + " → " + mode,
		"spec.tfstate.lockIdentifier: " + orWord(f.LockIdentifier, "(unset)") + " → " + lock,
		"metadata.annotations." + flux.AnnotationRequestedAt + ": " + orWord(f.RequestedAt, "(unset)") + " → " + token,
	}
	p.Warnings = []string{"break lock " + lock + " only if the run holding it is dead: a live run would then write the state at the same time as the next one"}
	p.verify = func(after map[string]any) error {
		if lookupString(after, "spec", "tfstate", "lockIdentifier") != lock || lookupString(after, "spec", "tfstate", "forceUnlock") != mode {
			return fmt.Errorf("spec.tfstate does not name lock %s with forceUnlock %s after the write", lock, mode)
		}
		return nil
	}
	return p, nil
}
