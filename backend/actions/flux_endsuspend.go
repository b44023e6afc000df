package actions

import (
	"fmt"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// planFluxEndSuspend ends a suspend set outside driftdeck as flux resume
// does (spec.suspend: false), naming whose suspend it ends: the field
// manager that owns spec.suspend and when it last wrote it.
func planFluxEndSuspend(u *model.Unit, obj map[string]any) *Plan {
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.test(true, "spec", "suspend")
	ops.replace(false, "spec", "suspend")
	p := &Plan{Patch: ops, fieldManager: fluxFieldManager, eventReason: "DriftdeckResume", eventVerb: "resumed"}
	p.Summary = "resume " + u.Key.Ref() + ": end a suspend driftdeck did not set (" + suspendedBy(obj) + "), as flux resume does"
	p.Changes = []string{"spec.suspend: true → false"}
	p.Warnings = append(p.Warnings, parentWarning(u)...)
	p.verify = func(after map[string]any) error {
		if got, _ := lookup(after, "spec", "suspend"); got != false {
			return fmt.Errorf("spec.suspend is %s after the write, not false", compactJSON(got))
		}
		return nil
	}
	return p
}

// suspendedBy names the field manager owning spec.suspend and the time of
// its last write, from metadata.managedFields (the name escaped: it is the
// cluster's text).
func suspendedBy(obj map[string]any) string {
	entries, _ := lookup(obj, "metadata", "managedFields")
	list, _ := entries.([]any)
	for i := len(list) - 1; i >= 0; i-- {
		e, _ := list[i].(map[string]any)
		if _, owns := lookup(e, "fieldsV1", "f:spec", "f:suspend"); !owns {
			continue
		}
		who := "spec.suspend written by " + safetext.Visible(orWord(lookupString(e, "manager"), "an unnamed field manager"))
		if at := lookupString(e, "time"); at != "" {
			return who + " at " + at
		}
		return who
	}
	return "no managedFields entry names who wrote spec.suspend"
}
