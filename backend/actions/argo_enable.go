package actions

import (
	"fmt"
	"reflect"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pause"
)

// planArgoEnableAutoSync is a resume of an Application whose automation was
// turned off outside driftdeck, so no pause record says what it was: it
// writes the policy the user chose (Request.AutoSync) and nothing else.
func planArgoEnableAutoSync(u *model.Unit, obj map[string]any, req Request) (*Plan, error) {
	if u.Argo.AutoSync {
		return nil, nothingToDo("%s is not paused by driftdeck (no %s annotation) and auto-sync is on", u.Key.Ref(), pause.AnnotationPrevious)
	}
	if req.AutoSync == nil || !req.Single {
		return nil, nothingToDo("%s is not paused by driftdeck (no %s annotation): its auto-sync was turned off elsewhere; to turn it on, resume it by name with the policy to write (--auto-sync, and --self-heal, --prune as wanted)", u.Key.Ref(), pause.AnnotationPrevious)
	}
	current, present := lookup(obj, automatedPath...)
	want := map[string]any{"prune": req.AutoSync.Prune, "selfHeal": req.AutoSync.SelfHeal}
	if m, ok := current.(map[string]any); ok {
		if _, ok := m["enabled"]; ok {
			want["enabled"] = true
		}
	}
	var ops patch
	ops.test(lookupString(obj, "metadata", "uid"), "metadata", "uid")
	ops.swap(current, present, want, automatedPath...)
	p := &Plan{Patch: ops, eventReason: "DriftdeckResume", eventVerb: "enabled auto-sync of"}
	p.Summary = fmt.Sprintf("resume %s: enable auto-sync (self-heal %s, prune %s), turned off outside driftdeck", u.Key.Ref(), onOff(req.AutoSync.SelfHeal), onOff(req.AutoSync.Prune))
	p.Changes = []string{"spec.syncPolicy.automated: " + compactJSON(current) + " → " + compactJSON(want)}
	p.Warnings = append(p.Warnings, ownerWarning(u.Owner)...)
	p.verify = func(after map[string]any) error {
		if got, _ := lookup(after, automatedPath...); !reflect.DeepEqual(normalizeJSON(got), normalizeJSON(want)) {
			return fmt.Errorf("spec.syncPolicy.automated is %s after the write, not the chosen %s", compactJSON(got), compactJSON(want))
		}
		return nil
	}
	return p, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
