package argocd

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

func loadApp(t testing.TB, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// set writes a value at a path, creating maps on the way.
func set(obj map[string]any, v any, path ...string) {
	cur := obj
	for _, p := range path[:len(path)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	if v == nil {
		delete(cur, path[len(path)-1])
		return
	}
	cur[path[len(path)-1]] = v
}

func TestConvertRunningApp(t *testing.T) {
	u := Convert("prod", loadApp(t, "app-running.json"))
	if u.Key != (model.Key{Context: "prod", Engine: model.EngineArgoCD, Namespace: "argocd", Name: "guestbook"}) {
		t.Fatalf("key %+v", u.Key)
	}
	if u.Run != model.Running || !strings.Contains(u.RunReason, "retry 1") {
		t.Errorf("run %v %q, want running with the retry count", u.Run, u.RunReason)
	}
	if u.Sync != model.Drifted || u.SyncNative != "OutOfSync" || u.Health != model.Progressing {
		t.Errorf("sync %v/%s health %v", u.Sync, u.SyncNative, u.Health)
	}
	if u.Automation != model.SelfHeal || u.AutomationNative != "automated prune selfHeal" {
		t.Errorf("automation %v %q", u.Automation, u.AutomationNative)
	}
	if u.Owner != "Application/root" {
		t.Errorf("owner %q, want the parent app from the tracking id", u.Owner)
	}
	if u.Desired != "main" || u.Applied != "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678" {
		t.Errorf("revisions %q %q", u.Desired, u.Applied)
	}
	if got := u.Argo.Resources; got.OutOfSync != 1 || got.Synced != 1 {
		t.Errorf("resource counts %v", got)
	}
	if len(u.ReadErrors) != 0 {
		t.Errorf("read errors on a well-formed app: %v", u.ReadErrors)
	}
}

func TestConvertClassifiesOperationStates(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(obj map[string]any)
		run    model.RunState
		reason string
	}{
		{"zombie: Running without operation", func(o map[string]any) { delete(o, "operation") }, model.Stuck, "no operation"},
		{"queued: operation, no state", func(o map[string]any) { set(o, nil, "status", "operationState") }, model.Running, "not started"},
		{"blocked by window", func(o map[string]any) {
			set(o, "Sync operation blocked by sync window", "status", "operationState", "message")
		}, model.BlockedByWindow, "blocked by sync window"},
		{"prune confirmation", func(o map[string]any) {
			set(o, "waiting for pruning confirmation of apps/Deployment/old", "status", "operationState", "message")
		}, model.AwaitingApproval, "prune confirmation"},
		{"failed", func(o map[string]any) {
			delete(o, "operation")
			set(o, "Failed", "status", "operationState", "phase")
			set(o, "one or more objects failed to apply\nmore", "status", "operationState", "message")
		}, model.Failed, "one or more objects failed to apply"},
		{"manual and drifted awaits a sync", func(o map[string]any) {
			delete(o, "operation")
			set(o, "Succeeded", "status", "operationState", "phase")
			set(o, nil, "spec", "syncPolicy", "automated")
		}, model.AwaitingApproval, "manual sync"},
		{"comparison error", func(o map[string]any) {
			delete(o, "operation")
			set(o, "Succeeded", "status", "operationState", "phase")
			set(o, []any{map[string]any{"type": "ComparisonError", "message": "repo not found"}}, "status", "conditions")
		}, model.Failed, "ComparisonError: repo not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := loadApp(t, "app-running.json")
			c.edit(obj)
			u := Convert("", obj)
			if u.Run != c.run || !strings.Contains(u.RunReason, c.reason) {
				t.Fatalf("run %v %q, want %v containing %q", u.Run, u.RunReason, c.run, c.reason)
			}
		})
	}
}

func TestConvertAutomationGenerations(t *testing.T) {
	obj := loadApp(t, "app-running.json")
	set(obj, false, "spec", "syncPolicy", "automated", "enabled")
	if u := Convert("", obj); u.Automation != model.Suspended || u.Argo.AutoSync {
		t.Fatalf("enabled=false: automation %v autosync %v, want suspended/off", u.Automation, u.Argo.AutoSync)
	}
	set(obj, map[string]any{
		"driftdeck.io/paused-by": "alice", "driftdeck.io/paused-mode": "auto-sync",
		"driftdeck.io/paused-previous": `{"prune":true,"selfHeal":true}`, "driftdeck.io/paused-at": "2026-11-29T10:00:00Z",
		"driftdeck.io/paused-until": "2026-11-29T12:00:00Z",
	}, "metadata", "annotations")
	u := Convert("", obj)
	if u.Automation != model.Paused || u.Pause == nil || u.Pause.By != "alice" {
		t.Fatalf("driftdeck pause not recognised: %v %+v", u.Automation, u.Pause)
	}
	if !u.Pause.Expired(time.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC)) || u.Pause.Expired(time.Date(2026, 11, 29, 11, 0, 0, 0, time.UTC)) {
		t.Error("pause expiry misjudged")
	}
	// Somebody switched auto-sync back on: the record stays, the pause is not in force.
	set(obj, true, "spec", "syncPolicy", "automated", "enabled")
	if u := Convert("", obj); u.Automation == model.Paused {
		t.Error("a reverted pause still shows as paused")
	}
}

func TestConvertReportsUnreadableFields(t *testing.T) {
	obj := loadApp(t, "app-running.json")
	set(obj, 42, "status", "sync", "status")
	set(obj, "yesterday", "status", "operationState", "startedAt")
	set(obj, "not a list", "status", "history")
	u := Convert("", obj)
	joined := strings.Join(u.ReadErrors, "\n")
	for _, want := range []string{"status.sync.status: want a string, got number 42", "status.operationState.startedAt: want a timestamp", "status.history: want a list"} {
		if !strings.Contains(joined, want) {
			t.Errorf("read errors %q lack %q", joined, want)
		}
	}
	if u.Key.Name != "guestbook" {
		t.Error("a unit with bad fields lost its identity")
	}
}
