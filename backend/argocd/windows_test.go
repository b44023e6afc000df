package argocd

import (
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

func window(kind, schedule, duration string, manual bool, apps ...string) map[string]any {
	w := map[string]any{"kind": kind, "schedule": schedule, "duration": duration, "manualSync": manual}
	var a []any
	for _, s := range apps {
		a = append(a, s)
	}
	w["applications"] = a
	return w
}

func project(ws ...map[string]any) map[string]any {
	var list []any
	for _, w := range ws {
		list = append(list, w)
	}
	return map[string]any{"spec": map[string]any{"syncWindows": list}}
}

// 10:30 UTC on a Sunday.
var at1030 = time.Date(2026, 11, 29, 10, 30, 0, 0, time.UTC)

func TestEvaluateFollowsArgoRules(t *testing.T) {
	cases := []struct {
		name             string
		windows          []map[string]any
		autoOK, manualOK bool
		reason           string
	}{
		{"no windows", nil, true, true, ""},
		{"window for another app", []map[string]any{window("deny", "0 10 * * *", "1h", false, "other-*")}, true, true, ""},
		{"active deny", []map[string]any{window("deny", "0 10 * * *", "1h", false, "guest*")}, false, false, "deny window"},
		{"active deny allowing manual", []map[string]any{window("deny", "0 10 * * *", "1h", true, "*")}, false, true, "manual syncs allowed"},
		{"deny over: allowed", []map[string]any{window("deny", "0 8 * * *", "1h", false, "*")}, true, true, ""},
		{"deny beats allow", []map[string]any{window("allow", "0 10 * * *", "2h", false, "*"), window("deny", "0 10 * * *", "1h", true, "*")}, false, true, "deny window"},
		{"inside allow", []map[string]any{window("allow", "0 10 * * *", "1h", false, "*")}, true, true, ""},
		{"outside every allow", []map[string]any{window("allow", "0 22 * * *", "1h", false, "*")}, false, false, "outside allow window"},
		{"manual needs every inactive allow", []map[string]any{window("allow", "0 22 * * *", "1h", true, "*"), window("allow", "0 23 * * *", "1h", false, "*")}, false, false, "manual syncs blocked"},
		{"invalid schedule blocks", []map[string]any{window("deny", "@daily", "1h", true, "*")}, false, false, "invalid sync window"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Evaluate(ReadWindows(project(c.windows...)), "guestbook", "guestbook", "https://kubernetes.default.svc", "in-cluster", at1030)
			if v.AutoOK != c.autoOK || v.ManualOK != c.manualOK || !strings.Contains(v.Reason, c.reason) {
				t.Fatalf("got auto %v manual %v %q, want %v %v containing %q", v.AutoOK, v.ManualOK, v.Reason, c.autoOK, c.manualOK, c.reason)
			}
		})
	}
}

func TestWindowMatchingAndOperator(t *testing.T) {
	w := window("deny", "0 10 * * *", "1h", false, "guest*")
	w["namespaces"] = []any{"prod-*"}
	and := ReadWindows(project(w))[0]
	if !and.Matches("guestbook", "dev", "", "") {
		t.Error("or-mode: the app name alone should match")
	}
	and.AndOperator = true
	if and.Matches("guestbook", "dev", "", "") || !and.Matches("guestbook", "prod-eu", "", "") {
		t.Error("and-mode must require every non-empty list")
	}
	empty := ReadWindows(project(map[string]any{"kind": "deny", "schedule": "* * * * *", "duration": "1h"}))[0]
	if empty.Matches("guestbook", "x", "y", "z") {
		t.Error("a window with no lists matches nothing")
	}
}

func TestProjectsClassifyBlocksWhatWouldSync(t *testing.T) {
	p := NewProjects()
	p.Put("prod", "argocd", "team-a", ReadWindows(project(window("deny", "0 10 * * *", "1h", false, "*"))))
	obj := loadApp(t, "app-running.json")
	delete(obj, "operation")
	set(obj, "Succeeded", "status", "operationState", "phase")
	u := Convert("prod", obj) // drifted, auto-sync on, idle
	if !p.Classify(u, at1030) {
		t.Error("a unit under windows must be re-derived as time passes")
	}
	if u.Observed != model.BlockedByWindow || !strings.Contains(u.RunReason, "deny window") || u.WindowAllowsManual {
		t.Fatalf("got %v %q manual=%v", u.Observed, u.RunReason, u.WindowAllowsManual)
	}
	later := Convert("prod", obj)
	p.Classify(later, at1030.Add(time.Hour))
	if later.Observed == model.BlockedByWindow || later.Window != "" {
		t.Fatalf("after the window closed: %v %q", later.Observed, later.Window)
	}
}
