package actions

import (
	"context"
	"strings"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// Availability says whether an action can be offered for a unit, and why not.
type Availability struct {
	Kind    Kind
	Enabled bool
	WhyNot  string
}

// Available lists the actions of a unit's engine with what keeps each from
// being possible now: read-only mode, missing permission (asked of the cluster
// and cached), or the unit's state. The execution checks again on a fresh read.
func (e *Executor) Available(ctx context.Context, u *model.Unit) []Availability {
	kinds := KindsFor(u.Key.Engine)
	out := make([]Availability, 0, len(kinds))
	rbac := ""
	if e.ReadOnly {
		rbac = "read-only mode"
	} else if c, ok := e.Cluster(u.Key.Context); !ok {
		rbac = "not connected to context " + u.Key.Context
	} else if gvr, ok := resourceOf(c, u.Key.Engine); ok {
		v, err := c.Access.Can(ctx, "patch", gvr, u.Key.Namespace, "")
		switch {
		case err != nil:
			rbac = "cannot check permission: " + err.Error()
		case !v.Allowed:
			rbac = v.Reason
		}
	}
	for _, k := range kinds {
		why := rbac
		if why == "" {
			why = stateWhyNot(u, k)
		}
		out = append(out, Availability{Kind: k, Enabled: why == "", WhyNot: why})
	}
	return out
}

// stateWhyNot is the unit-state half of availability; "" means possible.
func stateWhyNot(u *model.Unit, k Kind) string {
	switch {
	case u.Argo != nil:
		return argoWhyNot(u, k)
	case u.Stack != nil:
		return stackWhyNot(u, k)
	case u.Tofu != nil:
		return tofuWhyNot(u, k)
	case u.Flux != nil:
		return fluxWhyNot(u, u.Flux, k)
	}
	return "no actions for this engine"
}

func argoWhyNot(u *model.Unit, k Kind) string {
	f := u.Argo
	blocked := ""
	if u.Window != "" && !u.WindowAllowsManual {
		blocked = "blocked by sync window: " + u.Window
	}
	switch k {
	case Sync:
		if f.OperationSet {
			return "an operation is in progress; terminate it first"
		}
		return blocked
	case Approve:
		if f.OperationSet {
			return "an operation is in progress"
		}
		if u.Sync != model.Drifted {
			return "in sync: nothing to approve"
		}
		return blocked
	case Refresh, HardRefresh:
		return ""
	case Terminate:
		switch {
		case f.Phase == "Running" && !f.OperationSet:
			return "zombie operation (Running, no operation): terminate cannot reach it; sync instead"
		case f.Phase != "Running":
			return "no running operation"
		}
		return ""
	case Pause:
		switch {
		case u.Pause != nil:
			return "already paused by " + u.Pause.By
		case !f.AutomatedSet:
			return "manual sync policy: nothing to pause"
		case !f.AutoSync:
			return "auto-sync is already off"
		}
		return ""
	case PauseSelfHeal:
		switch {
		case u.Pause != nil:
			return "already paused by " + u.Pause.By
		case !f.AutoSync || !f.SelfHeal:
			return "self-heal is not on"
		}
		return ""
	case Resume:
		if u.Pause == nil {
			return "not paused by driftdeck"
		}
		return ""
	case Rollback:
		switch {
		case f.AutoSync:
			return "auto-sync is on: pause it first"
		case len(f.HistoryIDs) == 0:
			return "no history to roll back to"
		case f.OperationSet:
			return "an operation is in progress"
		}
		return blocked
	case ConfirmPrune:
		if f.PruneRequired || (f.Phase == "Running" && strings.Contains(f.PhaseMessage, "pruning confirmation")) {
			return ""
		}
		return "nothing waits for prune confirmation"
	}
	return "not an Argo CD action"
}

func stackWhyNot(u *model.Unit, k Kind) string {
	f := u.Stack
	switch k {
	case Retry:
		return ""
	case Approve:
		if f.PendingCommit != "" || (f.Preview && u.Pause == nil) {
			return ""
		}
		return "nothing waits for approval"
	case Pause:
		switch {
		case u.Pause != nil:
			return "already paused by " + u.Pause.By
		case f.Preview:
			return "already preview-only"
		}
		return ""
	case Resume:
		if u.Pause == nil {
			return "not paused by driftdeck"
		}
		return ""
	case Unlock:
		switch {
		case f.CurrentUpdate != "":
			return "update " + f.CurrentUpdate + " is running: its lock is live"
		case !pulumiop.LockConflict(f.LastMessage):
			return "not stuck on a state lock (the last update did not fail on one)"
		}
		return ""
	}
	return "not a Stack action"
}
