package tofu

import (
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// Convert turns a Terraform object into a unit of the given context. It never
// fails: what it cannot read is listed in ReadErrors.
func Convert(context string, obj map[string]any) *model.Unit {
	r := objread.New(obj)
	u, ff := flux.NewUnit(context, model.EngineTerraform, "Terraform", r)
	spec, st := r.At("spec"), r.At("status")
	ff.Source = flux.ReadSource(spec.At("sourceRef"), u.Key.Namespace)
	ff.LastApplied = st.Str("lastAppliedRevision")
	f := &model.TofuFacts{
		FluxFacts:              *ff,
		ApprovePlan:            spec.Str("approvePlan"),
		PendingPlan:            st.Str("plan", "pending"),
		LastAppliedPlan:        st.Str("plan", "lastApplied"),
		LastPlannedGen:         st.Int("lastPlannedGeneration"),
		LastPlannedRevision:    st.Str("lastPlannedRevision"),
		LastPlanAt:             st.Time("lastPlanAt"),
		LastDriftAt:            st.Time("lastDriftDetectedAt"),
		LockPending:            st.Str("lock", "pending"),
		ForceUnlock:            spec.Str("tfstate", "forceUnlock"),
		LockIdentifier:         spec.Str("tfstate", "lockIdentifier"),
		ReconciliationFailures: st.Int("reconciliationFailures"),
		Retries:                spec.Int("remediation", "retries"),
		Workspace:              spec.Str("workspace"),
		StoreReadablePlan:      spec.Str("storeReadablePlan"),
		Outputs:                st.Strings("availableOutputs"),
		OutputsSecret:          spec.Str("writeOutputsToSecret", "name"),
	}
	f.PlanOnly, _ = spec.Bool("planOnly")
	f.Force, _ = spec.Bool("force")
	disabled, _ := spec.Bool("disableDriftDetection")
	f.DriftDetection = !disabled
	f.DestroyPlan, _ = st.Bool("plan", "isDestroyPlan")
	f.DriftPlan, _ = st.Bool("plan", "isDriftDetectionPlan")
	if f.Workspace == "" {
		f.Workspace = "default"
	}
	// v1alpha1 has no lastPlannedGeneration: staleness is then unknown.
	f.PlanStale = f.PendingPlan != "" && st.Has("lastPlannedGeneration") && f.LastPlannedGen != u.Generation
	ready := flux.Condition(f.Conditions, "Ready")
	f.DriftFound = flux.Is(ready, "False") && ready.Reason == ReasonDriftDetected
	u.Tofu = f
	u.Desired, u.Applied = f.LastAttempted, f.LastApplied
	if t := f.LastPlanAt; t.After(u.LastChange) {
		u.LastChange = t
	}

	flux.ReadHealth(u, &f.FluxFacts)
	readSync(u, f, ready)
	readAutomation(u, f)
	classifyRun(u, f)
	flux.Finish(u, r)
	return u
}

func readSync(u *model.Unit, f *model.TofuFacts, ready *model.Condition) {
	switch {
	case f.DriftFound:
		u.Sync, u.SyncNative = model.Drifted, "DriftDetected"
	case f.PendingPlan != "":
		u.Sync, u.SyncNative = model.Drifted, "plan "+f.PendingPlan+" not applied"
	case flux.Is(ready, "True"):
		// A plan without changes records the revision as planned, not
		// applied: lastAppliedRevision may lag and still be in sync.
		u.Sync, u.SyncNative = model.InSync, ready.Reason
	}
}

// mode names the Terraform's approval mode in tofu-controller's words.
func mode(f *model.TofuFacts) string {
	switch {
	case f.PlanOnly:
		return "plan only"
	case f.Force:
		return "force"
	case f.ApprovePlan == ApproveAuto:
		return "approvePlan: auto"
	case f.ApprovePlan == ApproveDisable:
		return "drift detection only"
	case f.ApprovePlan == "":
		return "manual approval"
	}
	return "manual approval (approvePlan: " + f.ApprovePlan + ")"
}

func readAutomation(u *model.Unit, f *model.TofuFacts) {
	words := mode(f)
	if !f.DriftDetection {
		words += ", drift detection off"
	}
	switch {
	case flux.PausedByDriftdeck(u, &f.FluxFacts):
		u.Automation, u.AutomationNative = model.Paused, flux.PausedNative
	case f.Suspended:
		u.Automation, u.AutomationNative = model.Suspended, "suspend: true ("+words+")"
	case (f.ApprovePlan == ApproveAuto || f.Force) && !f.PlanOnly && f.DriftDetection:
		// Drift found is planned and applied at the next interval.
		u.Automation, u.AutomationNative = model.SelfHeal, words
	case (f.ApprovePlan == ApproveAuto || f.Force) && !f.PlanOnly:
		u.Automation, u.AutomationNative = model.Auto, words
	default:
		u.Automation, u.AutomationNative = model.Manual, words
	}
}

func classifyRun(u *model.Unit, f *model.TofuFacts) {
	set := func(s model.RunState, since time.Time, reason string) {
		u.Observed, u.Run, u.RunSince, u.RunReason = s, s, since, reason
	}
	ready := flux.Condition(f.Conditions, "Ready")
	stalled := flux.Condition(f.Conditions, "Stalled")
	approved := f.PendingPlan != "" && f.ApprovePlan == f.PendingPlan
	switch {
	case f.Suspended:
		flux.ClassifyRun(u, &f.FluxFacts, "")
	case flux.Is(stalled, "True") && stalled.Reason == ReasonRetryLimitReached:
		set(model.Stuck, stalled.Since, fmt.Sprintf("retries exhausted after %d failure(s): %s", f.ReconciliationFailures, readyMessage(ready)))
		u.StuckRule = fmt.Sprintf("Stalled with RetryLimitReached: spec.remediation.retries (%d) are used up; tofu-controller does nothing until the spec changes", f.Retries)
	case f.LockPending != "":
		set(model.Stuck, sinceOf(flux.Condition(f.Conditions, "StateLocked")), "state lock "+f.LockPending+" held: "+readyMessage(ready))
		u.StuckRule = "status.lock.pending names a held state lock: every plan and apply fails until it is released; if its holder is dead, force-unlock it (spec.tfstate.forceUnlock: yes with lockIdentifier: " + f.LockPending + ")"
	case f.PendingPlan != "" && !f.PlanOnly && !approved && f.ApprovePlan != ApproveAuto && !f.Force:
		reason := "plan " + f.PendingPlan + " waits for approval"
		if f.PlanStale {
			reason += fmt.Sprintf("; it is stale (planned at generation %d, the spec is at %d): a new plan comes first", f.LastPlannedGen, u.Generation)
		}
		set(model.AwaitingApproval, f.LastPlanAt, reason)
		u.StuckRule = "status.plan.pending names a plan and spec.approvePlan does not: tofu-controller applies it once spec.approvePlan is set to the full id " + f.PendingPlan
	case f.PendingPlan != "" && f.PlanOnly:
		set(model.Idle, f.LastPlanAt, "plan only: plan "+f.PendingPlan+" is never applied")
	case approved && !flux.Is(ready, "False"):
		set(model.Running, f.LastPlanAt, "plan "+f.PendingPlan+" approved, to be applied")
	case f.DriftFound:
		what := DriftSummary(ready.Message)
		if what == "" {
			what = readyMessage(ready)
		}
		set(model.Idle, ready.Since, "drift detected: "+what)
		if f.ApprovePlan != ApproveAuto && !f.Force {
			u.RunReason += " (not auto-approved: a plan must be approved)"
		}
	default:
		flux.ClassifyRun(u, &f.FluxFacts, "")
		if u.Observed == model.Failed && f.ReconciliationFailures > 0 {
			u.RunReason += fmt.Sprintf(" (%d failure(s))", f.ReconciliationFailures)
		}
	}
}

func readyMessage(c *model.Condition) string {
	if c == nil {
		return ""
	}
	return c.Reason + ": " + model.FirstLine(c.Message)
}

func sinceOf(c *model.Condition) time.Time {
	if c == nil {
		return time.Time{}
	}
	return c.Since
}

// keep is what Convert reads: not the variables or inventory, and of the
// outputs their names and Secret only.
var keep = flux.Keep{
	"apiVersion": nil, "kind": nil, "metadata": flux.Metadata,
	"spec": flux.Keep{
		"suspend": nil, "interval": nil, "sourceRef": nil, "dependsOn": nil, "approvePlan": nil, "planOnly": nil,
		"force": nil, "disableDriftDetection": nil, "workspace": nil, "storeReadablePlan": nil,
		"writeOutputsToSecret": flux.Keep{"name": nil}, "tfstate": flux.Keep{"forceUnlock": nil, "lockIdentifier": nil}, "remediation": flux.Keep{"retries": nil},
	},
	"status": flux.Keep{
		"conditions": nil, "lastAppliedRevision": nil, "lastAttemptedRevision": nil, "lastPlannedRevision": nil,
		"lastPlannedGeneration": nil, "lastPlanAt": nil, "lastDriftDetectedAt": nil, "lastHandledReconcileAt": nil,
		"observedGeneration": nil, "reconciliationFailures": nil, "availableOutputs": nil,
		"plan": flux.Keep{"pending": nil, "lastApplied": nil, "isDestroyPlan": nil, "isDriftDetectionPlan": nil},
		"lock": flux.Keep{"pending": nil},
	},
}

// DecodeSlim decodes a Terraform's JSON keeping only what Convert reads.
func DecodeSlim(data []byte) (map[string]any, error) { return flux.DecodeKept(data, keep) }
