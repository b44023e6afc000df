package actions

import (
	"github.com/driftdeck/driftdeck/backend/model"
)

// fluxWhyNot is availability for what Kustomizations, HelmReleases and
// Terraforms share; "" means possible.
func fluxWhyNot(u *model.Unit, f *model.FluxFacts, k Kind) string {
	switch k {
	case Refresh, Force:
		if f.Suspended {
			return "suspended: a reconcile would apply nothing; resume it first"
		}
		return ""
	case Reset:
		switch {
		case f.Suspended:
			return "suspended: resume it first"
		case f.Helm == nil || !hasFailures(f.Helm):
			return "no failures to reset"
		}
		return ""
	case Pause:
		switch {
		case u.Pause != nil:
			return "already paused by " + u.Pause.By
		case f.Suspended:
			return "already suspended (spec.suspend: true)"
		}
		return ""
	case Resume:
		switch {
		case u.Pause != nil:
			return ""
		case f.Suspended:
			return "" // ends the suspend somebody else set, as flux resume does
		}
		return "not paused by driftdeck"
	}
	return "not a Flux action"
}

// tofuWhyNot adds a Terraform's own actions to the Flux ones.
func tofuWhyNot(u *model.Unit, k Kind) string {
	f := u.Tofu
	switch k {
	case Approve:
		if err := approvable(u, ""); err != nil {
			return err.(*Refusal).Reason
		}
		return ""
	case Replan:
		switch {
		case f.Suspended:
			return "suspended: resume it first"
		case f.PendingPlan == "":
			return "no plan is pending"
		case f.Force || f.ApprovePlan == "auto":
			return "every plan is applied on its own (" + approvalMode(f) + ")"
		}
		return ""
	case ForceUnlock:
		switch {
		case f.LockPending == "":
			return "no state lock is held"
		case f.Suspended:
			return "suspended: resume it first"
		}
		return ""
	}
	return fluxWhyNot(u, &f.FluxFacts, k)
}
