package actions

import (
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// freshVerdict is the unit-state verdict of Available, taken again on the
// object an execution just read: the TUI's menu, a CLI command and the
// agent then refuse the same actions for the same reason. It runs after the
// planner, whose refusals say more (whose pause, since when); it catches
// what a planner would write though the state says there is nothing to do
// (approving an Application that is in sync).
func freshVerdict(env *planEnv, obj map[string]any, req Request) error {
	u := unitOf(env, req.Key.Engine, obj)
	if u == nil || req.Kind == Terminate && u.Stack != nil {
		// Whether a Stack's update is stuck is timed against the start of
		// its Update, which the object alone does not hold: the planner
		// read that Update, and the workspace pod's log, and judged.
		return nil
	}
	why := stateWhyNot(u, req.Kind)
	if why == "" {
		return nil
	}
	return &Refusal{Reason: req.Key.Ref() + ": " + why, NothingToDo: true}
}

// unitOf converts a fresh object as the watch does; nil for an engine
// without a converter here.
func unitOf(env *planEnv, engine model.Engine, obj map[string]any) *model.Unit {
	switch engine {
	case model.EngineArgoCD:
		return argocd.Convert(env.cluster.Context, obj)
	case model.EnginePulumi:
		return pulumiop.Convert(env.cluster.Context, obj)
	case model.EngineKustomization, model.EngineHelmRelease, model.EngineTerraform:
		u, _ := fluxUnit(env, engine, obj)
		return u
	}
	return nil
}
