package flux

import (
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
)

// A suspend driftdeck made and recorded reads paused, with the record; one
// made by somebody else reads suspended; a record on a unit somebody resumed
// keeps its interval words (the screens call the pause reverted).
func TestDriftdeckPauseReadsPausedOthersSuspended(t *testing.T) {
	record := func(o map[string]any) {
		set(o, "oncall@example.com", "metadata", "annotations", "driftdeck.io/paused-by")
		set(o, "INC-7 bad image", "metadata", "annotations", "driftdeck.io/paused-reason")
		set(o, "2026-11-29T09:30:00Z", "metadata", "annotations", "driftdeck.io/paused-at")
		set(o, "2026-11-29T12:00:00Z", "metadata", "annotations", "driftdeck.io/paused-until")
		set(o, "suspend", "metadata", "annotations", "driftdeck.io/paused-mode")
		set(o, "null", "metadata", "annotations", "driftdeck.io/paused-previous")
	}
	for _, c := range []struct {
		name       string
		suspend    bool
		record     bool
		automation model.Automation
		native     string
	}{
		{"paused by driftdeck", true, true, model.Paused, PausedNative},
		{"suspended by somebody else", true, false, model.Suspended, "suspend: true"},
		{"resumed by hand after a pause", false, true, 0, ""},
	} {
		for _, kind := range []string{"kustomization", "helmrelease"} {
			obj := load(t, kind+".json")
			set(obj, c.suspend, "spec", "suspend")
			if c.record {
				record(obj)
			}
			var u *model.Unit
			if kind == "kustomization" {
				u = ConvertKustomization("prod", obj)
			} else {
				u = ConvertHelmRelease("prod", obj)
			}
			if len(u.ReadErrors) > 0 {
				t.Fatalf("%s %s: %v", c.name, kind, u.ReadErrors)
			}
			if c.suspend && (u.Automation != c.automation || u.AutomationNative != c.native) {
				t.Errorf("%s %s: automation %v %q, want %v %q", c.name, kind, u.Automation, u.AutomationNative, c.automation, c.native)
			}
			if !c.suspend && (u.Automation == model.Paused || u.Automation == model.Suspended) {
				t.Errorf("%s %s: a resumed unit reads %v", c.name, kind, u.Automation)
			}
			if c.record && (u.Pause == nil || u.Pause.By != "oncall@example.com" || u.Pause.Reason != "INC-7 bad image" || u.Pause.Until.IsZero()) {
				t.Errorf("%s %s: the pause record is not read: %+v", c.name, kind, u.Pause)
			}
		}
	}
}
