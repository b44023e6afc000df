package argocd

import (
	"encoding/json"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// DecodeAppSet decodes an ApplicationSet's JSON keeping what ConvertAppSet
// reads: its generators and template (most of the object) are only counted
// or dropped.
func DecodeAppSet(data []byte) (map[string]any, error) {
	var a struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Metadata   map[string]any `json:"metadata"`
		Spec       *struct {
			Generators        []json.RawMessage `json:"generators"`
			IgnoreDifferences []json.RawMessage `json:"ignoreApplicationDifferences"`
			SyncPolicy        map[string]any    `json:"syncPolicy"`
		} `json:"spec"`
		Status *struct {
			Conditions []any `json:"conditions"`
		} `json:"status"`
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, err
	}
	obj := map[string]any{"apiVersion": a.APIVersion, "kind": a.Kind}
	if a.Metadata != nil {
		delete(a.Metadata, "managedFields")
		obj["metadata"] = a.Metadata
	}
	if s := a.Spec; s != nil {
		// Placeholders of the right length: Convert counts them.
		spec := map[string]any{"generators": make([]any, len(s.Generators)), "ignoreApplicationDifferences": make([]any, len(s.IgnoreDifferences))}
		put(spec, "syncPolicy", s.SyncPolicy)
		obj["spec"] = spec
	}
	if a.Status != nil && a.Status.Conditions != nil {
		obj["status"] = map[string]any{"conditions": a.Status.Conditions}
	}
	return obj, nil
}

// ConvertAppSet turns an ApplicationSet into the unit its generated
// Applications sit under. Its state is the controller's conditions: an
// ErrorOccurred condition is a failure, ResourcesUpToDate is healthy.
func ConvertAppSet(context string, obj map[string]any) *model.Unit {
	r := objread.New(obj)
	u := model.UnitFromObject(context, model.EngineApplicationSet, "ApplicationSet", r)
	f := &model.AppSetFacts{
		Generators:        len(r.Slice("spec", "generators")),
		IgnoreDifferences: len(r.Slice("spec", "ignoreApplicationDifferences")),
		ApplicationsSync:  r.Str("spec", "syncPolicy", "applicationsSync"),
		Conditions:        readConditions(r.At("status"), "conditions"),
	}
	f.PreserveOnDeletion, _ = r.Bool("spec", "syncPolicy", "preserveResourcesOnDeletion")
	u.AppSet = f
	u.Automation, u.AutomationNative = model.Auto, "applicationsSync "+orDefault(f.ApplicationsSync, "sync")
	for _, c := range f.Conditions {
		switch {
		case c.Type == "ErrorOccurred" && c.Status == "True":
			u.Health, u.HealthNative = model.Degraded, c.Reason
			u.Observed, u.Run, u.RunSince, u.RunReason = model.Failed, model.Failed, c.Since, c.Type+": "+model.FirstLine(c.Message)
		case c.Type == "ResourcesUpToDate" && c.Status == "True" && u.Health == model.HealthUnknown:
			u.Health, u.HealthNative = model.Healthy, c.Reason
		}
		u.LastChange = latest(u.LastChange, c.Since)
	}
	u.ReadErrors = r.Errors()
	if u.Key.Name == "" {
		u.ReadErrors = append(u.ReadErrors, "metadata.name: missing")
	}
	return u
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
