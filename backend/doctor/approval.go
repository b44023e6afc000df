package doctor

import (
	"strings"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/model"
)

// approvalFix: a change waiting for a person's yes. Approve writes that yes
// for what is pending now (the revision compared against, the proposed
// commit, the full plan id); a Terraform plan made from an older spec
// cannot be approved, a refresh plans again; an Argo CD sync waiting for
// prune confirmation gets it. Either way review it first.
func approvalFix(u *model.Unit, o cmdline.Origin) (actions.Kind, string) {
	switch {
	case u.Argo != nil && (u.Argo.PruneRequired || (u.Argo.Phase == "Running" && strings.Contains(u.Argo.PhaseMessage, "pruning confirmation"))):
		return actions.ConfirmPrune, "review what it deletes first: " + suggest(o, u, "diff", u.Key.Ref())
	case u.Tofu != nil && u.Tofu.PlanStale:
		return actions.Refresh, "the pending plan was made from an older spec: the refresh plans again, then review and approve the new plan"
	}
	return actions.Approve, "review it first: " + suggest(o, u, "diff", u.Key.Ref())
}

// invalidManifest: an Argo CD sync failed because the API server rejected
// what the source renders (an invalid object, a sync task not valid).
func invalidManifest(u *model.Unit) bool {
	if u.Argo == nil {
		return false
	}
	m := u.Argo.PhaseMessage
	return strings.Contains(m, " is invalid: ") || strings.Contains(m, "Invalid value: ") || strings.Contains(m, "are not valid")
}

// where names an Argo CD unit's source and revision, for a hint.
func where(u *model.Unit) string {
	s := "its source"
	if u.Argo != nil && u.Argo.RepoURL != "" {
		s = u.Argo.RepoURL
		if u.Argo.Path != "" {
			s += " (" + u.Argo.Path + ")"
		}
	}
	if u.Desired != "" {
		s += " at " + u.Desired
	}
	return s
}
