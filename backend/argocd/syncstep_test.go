package argocd

import (
	"testing"
)

// A running sync says its phase and, for the resource it waits on, that
// resource's wave among the app's: read alike from the whole object and
// through the slim decoder.
func TestARunningSyncSaysItsPhaseAndWave(t *testing.T) {
	cases := []struct {
		name, message string
		results       []any
		want          string
	}{
		{"a wave of resources", "waiting for healthy state of apps/Deployment/web and 1 more resources",
			[]any{map[string]any{"kind": "ConfigMap", "syncPhase": "Sync"}, map[string]any{"kind": "Job", "syncPhase": "PreSync", "hookType": "PreSync"}},
			"sync running (Sync phase, wave 0 of -1..1): waiting for healthy state of apps/Deployment/web and 1 more resources (retry 1)"},
		{"a hook", "waiting for completion of hook batch/Job/migrate",
			[]any{map[string]any{"kind": "Job", "name": "migrate", "syncPhase": "PreSync", "hookType": "PreSync"}},
			"sync running (PreSync phase): waiting for completion of hook batch/Job/migrate (retry 1)"},
		{"no task named yet", "one or more tasks are running", nil, "sync running: one or more tasks are running (retry 1)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			whole := loadApp(t, "app-running.json")
			set(whole, []any{
				map[string]any{"group": "", "kind": "ConfigMap", "namespace": "web", "name": "settings", "status": "Synced", "syncWave": -1},
				map[string]any{"group": "apps", "kind": "Deployment", "namespace": "web", "name": "web", "status": "Synced", "syncWave": 0},
				map[string]any{"group": "", "kind": "Service", "namespace": "web", "name": "web", "status": "OutOfSync", "syncWave": 1},
				map[string]any{"group": "batch", "kind": "Job", "namespace": "web", "name": "migrate", "hook": true, "syncWave": -5},
			}, "status", "resources")
			set(whole, c.message, "status", "operationState", "message")
			if c.results != nil {
				set(whole, map[string]any{"resources": c.results}, "status", "operationState", "syncResult")
			}
			u := checkSlim(t, whole)
			if u.RunReason != c.want {
				t.Errorf("why %q\nwant %q", u.RunReason, c.want)
			}
		})
	}
}
