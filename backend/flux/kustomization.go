package flux

import (
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// ConvertKustomization turns a Kustomization object into a unit of the given
// context. It never fails: what it cannot read is listed in ReadErrors.
func ConvertKustomization(context string, obj map[string]any) *model.Unit {
	r := objread.New(obj)
	u, f := NewUnit(context, model.EngineKustomization, "Kustomization", r)
	f.Source = ReadSource(r.At("spec", "sourceRef"), u.Key.Namespace)
	f.LastApplied = r.Str("status", "lastAppliedRevision")
	u.Flux = f
	u.Desired, u.Applied = f.LastAttempted, f.LastApplied

	ReadHealth(u, f)
	ready := Condition(f.Conditions, "Ready")
	switch {
	case f.LastAttempted != "" && f.LastAttempted != f.LastApplied:
		u.Sync, u.SyncNative = model.Drifted, "revision "+f.LastAttempted+" not applied"
	case Is(ready, "True"):
		u.Sync, u.SyncNative = model.InSync, "applied "+f.LastApplied
	}
	// kustomize-controller re-applies everything at each interval: live
	// drift is corrected unless suspended.
	ReadAutomation(u, f, true)
	ClassifyRun(u, f, "")
	Finish(u, r)
	return u
}

// kustomizationKeep is what ConvertKustomization reads.
var kustomizationKeep = Keep{
	"apiVersion": nil, "kind": nil, "metadata": Metadata,
	"spec":   Keep{"suspend": nil, "interval": nil, "sourceRef": nil, "dependsOn": nil},
	"status": Keep{"conditions": nil, "lastAppliedRevision": nil, "lastAttemptedRevision": nil, "lastHandledReconcileAt": nil, "observedGeneration": nil},
}

// DecodeKustomization decodes a Kustomization's JSON keeping only what
// ConvertKustomization reads (not its inventory of applied objects).
func DecodeKustomization(data []byte) (map[string]any, error) {
	return DecodeKept(data, kustomizationKeep)
}
