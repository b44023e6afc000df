package actions

import (
	"fmt"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pause"
)

// flagPause plans a pause that turns one boolean spec field true (a Flux
// unit's spec.suspend, a Stack's spec.preview): the uid and the field's
// present value are its preconditions, and the pause's annotations record
// that value for the resume. The caller names the event and the summary.
func flagPause(env *planEnv, obj map[string]any, req Request, field, mode string) *Plan {
	prevVal, present := lookup(obj, "spec", field)
	previous := "null"
	if present {
		previous = compactJSON(prevVal)
	}
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.test(prevVal, "spec", field)
	ops.add(true, "spec", field)
	ann := pauseAnnotations(env, req, mode, previous)
	ops.setAnnotations(annotationsOf(obj), ann)
	p := &Plan{Patch: ops, Previous: previous, eventReason: "DriftdeckPause"}
	p.Changes = []string{"spec." + field + ": " + previous + " → true"}
	for _, k := range sortedKeys(ann) {
		p.Changes = append(p.Changes, "metadata.annotations."+k+": "+ann[k])
	}
	p.verify = func(after map[string]any) error {
		if v, _ := lookup(after, "spec", field); v != true {
			return fmt.Errorf("spec.%s is not true after the write (an installed CRD without the field prunes it)", field)
		}
		return nil
	}
	return p
}

// flagResume plans the resume of a flagPause: the field, still true as the
// pause left it, goes back to the value the pause recorded (removed when it
// was absent), and the pause's annotations go.
func flagResume(obj map[string]any, u *model.Unit, field string, previous any) *Plan {
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.test(true, "spec", field)
	if previous == nil {
		ops.remove("spec", field)
	} else {
		ops.replace(previous, "spec", field)
	}
	ops.removeAnnotations(annotationsOf(obj), pause.Annotations)
	p := &Plan{Patch: ops, Previous: u.Pause.Previous, eventReason: "DriftdeckResume", eventVerb: "resumed"}
	p.Summary = "resume " + u.Key.Ref() + ": restore spec." + field + " as it was before the pause by " + u.Pause.By
	p.Changes = []string{"spec." + field + ": true → " + u.Pause.Previous, "metadata.annotations: driftdeck.io/paused-* removed"}
	p.verify = func(after map[string]any) error {
		// An absent field may come back defaulted to false by the CRD.
		got, present := lookup(after, "spec", field)
		if (previous == nil && present && got != nil && got != false) || (previous != nil && got != previous) {
			return fmt.Errorf("spec.%s is %s after the write, not the recorded %s", field, compactJSON(got), u.Pause.Previous)
		}
		return nil
	}
	return p
}
