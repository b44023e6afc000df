package ui

import (
	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// spec mirrors the backend's table of action kinds until it lands.
type spec struct {
	Kind                  actions.Kind
	Engines               []model.Engine
	Destructive, Bulkable bool
	Key, Help             string
}

const kindUnlock actions.Kind = "unlock"

func specs() []spec {
	argo, pulumi := []model.Engine{model.EngineArgoCD}, []model.Engine{model.EnginePulumi}
	both := []model.Engine{model.EngineArgoCD, model.EnginePulumi}
	return []spec{
		{actions.Sync, argo, true, true, "sync", "sync now"},
		{actions.Approve, both, true, false, "approve", "approve"},
		{actions.Refresh, argo, false, true, "refresh", "refresh"},
		{actions.HardRefresh, argo, false, true, "hardrefresh", "hard refresh"},
		{actions.Terminate, argo, true, false, "terminate", "terminate"},
		{actions.Retry, pulumi, true, true, "retry", "retry"},
		{actions.Pause, both, true, true, "pause", "pause"},
		{actions.PauseSelfHeal, argo, true, true, "", "pause self-heal"},
		{actions.Resume, both, true, true, "resume", "resume"},
		{actions.Rollback, argo, true, false, "rollback", "rollback"},
		{actions.ConfirmPrune, argo, true, false, "confirmprune", "confirm prune"},
		{kindUnlock, pulumi, true, false, "unlock", "unlock"},
	}
}

func specOf(k actions.Kind) spec {
	for _, s := range specs() {
		if s.Kind == k {
			return s
		}
	}
	return spec{Kind: k, Destructive: true}
}

// takesUntil: pauses take an optional expiry.
func takesUntil(k actions.Kind) bool { return k == actions.Pause || k == actions.PauseSelfHeal }
