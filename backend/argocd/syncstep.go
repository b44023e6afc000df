package argocd

import (
	"strings"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// The sync phases in the order a sync runs them.
var phaseOrder = map[string]int{"PreSync": 1, "Sync": 2, "PostSync": 3, "SyncFail": 4}

// waitPrefixes start the controller's message while a sync waits on its
// running tasks (gitops-engine's setRunningPhase): the first task follows,
// as <group>/<kind>/<name>, then " and N more ...".
var waitPrefixes = []string{"waiting for healthy state of ", "waiting for completion of hook ", "waiting for deletion of "}

// readStep says where a running sync is: the latest phase of the tasks it
// has started (each entry of the last sync result names its phase) and the
// resource its message says it waits on.
func readStep(op *objread.Reader, f *model.ArgoFacts) {
	if f.Phase != "Running" {
		return
	}
	step := &model.SyncStep{}
	for _, res := range op.Objects("syncResult", "resources") {
		if p := res.Str("syncPhase"); phaseOrder[p] > phaseOrder[step.Phase] {
			step.Phase = p
		}
	}
	step.WaitsOn = waitedOn(f.PhaseMessage)
	if step.Phase != "" || step.WaitsOn != "" {
		f.Step = step
	}
}

// waitedOn is the <group>/<kind>/<name> a running sync's message waits on,
// "" when it names none.
func waitedOn(msg string) string {
	for _, p := range waitPrefixes {
		if rest, ok := strings.CutPrefix(msg, p); ok {
			first, _, _ := strings.Cut(rest, " ")
			if strings.Count(first, "/") == 2 {
				return first
			}
		}
	}
	return ""
}

// stepWave adds one entry of status.resources to the running sync's waves:
// the lowest and highest, and the wave of the resource it waits on. The
// controller leaves out a wave of 0 (omitempty); hooks have no entry wave.
func stepWave(it *objread.Reader, step *model.SyncStep, seen *bool) {
	if step == nil {
		return
	}
	if hook, _ := it.Bool("hook"); hook {
		return
	}
	w := it.Int("syncWave")
	if !*seen || w < step.FirstWave {
		step.FirstWave = w
	}
	if !*seen || w > step.LastWave {
		step.LastWave = w
	}
	*seen = true
	if step.WaitsOn != "" && it.Str("group")+"/"+it.Str("kind")+"/"+it.Str("name") == step.WaitsOn {
		step.Wave, step.HasWave = w, true
	}
}
