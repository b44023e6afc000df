package pulumiop

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

func loadStack(t testing.TB) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/stack-v2.json")
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func at(obj map[string]any, path ...string) map[string]any {
	cur := obj
	for _, p := range path {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	return cur
}

func cond(typ, status, reason, msg string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg, "lastTransitionTime": "2026-11-29T10:00:00Z"}
}

func TestConvertReadyPinnedStack(t *testing.T) {
	u := Convert("prod", loadStack(t))
	if u.Run != model.Idle || u.Health != model.Healthy || u.Sync != model.InSync {
		t.Fatalf("run %v health %v sync %v", u.Run, u.Health, u.Sync)
	}
	if u.Automation != model.Manual || u.AutomationNative != "pinned commit" {
		t.Errorf("automation %v %q", u.Automation, u.AutomationNative)
	}
	if !u.Stack.OperatorV2 || u.Stack.LastRequest != "r2" {
		t.Errorf("facts %+v", u.Stack)
	}
	if len(u.ReadErrors) > 0 {
		t.Errorf("read errors: %v", u.ReadErrors)
	}
}

func TestConvertStackStates(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(o map[string]any)
		run    model.RunState
		reason string
	}{
		{"stalled after failures", func(o map[string]any) {
			at(o, "status")["conditions"] = []any{cond("Ready", "False", "NotReadyStalled", ""), cond("Stalled", "True", "UpdateFailed", "up failed 3 times; not retrying until the spec or source changes")}
		}, model.Stuck, "UpdateFailed"},
		{"retrying after failure", func(o map[string]any) {
			at(o, "status")["conditions"] = []any{cond("Ready", "False", "NotReadyInProgress", ""), cond("Reconciling", "True", "RetryingAfterFailure", "1 update failure(s)")}
			at(o, "status", "lastUpdate")["state"] = "failed"
			at(o, "status", "lastUpdate")["message"] = "the stack is currently locked by 1 lock(s)"
		}, model.Stuck, "failed on a state lock"},
		{"retrying after another failure", func(o map[string]any) {
			at(o, "status")["conditions"] = []any{cond("Ready", "False", "NotReadyInProgress", ""), cond("Reconciling", "True", "RetryingAfterFailure", "1 update failure(s)")}
			at(o, "status", "lastUpdate")["state"] = "failed"
			at(o, "status", "lastUpdate")["message"] = "error: resource creation failed: quota exceeded"
		}, model.Failed, "quota exceeded"},
		{"preview-only stack applied nothing", func(o map[string]any) {
			at(o, "spec")["preview"] = true
			at(o, "status", "lastUpdate")["type"] = "preview"
		}, model.Idle, ""},
		{"update in progress", func(o map[string]any) {
			at(o, "status", "currentUpdate")["name"] = "network-18c3"
			at(o, "status")["conditions"] = []any{cond("Ready", "False", "NotReadyInProgress", ""), cond("Reconciling", "True", "StackProcessing", "stack is being processed")}
		}, model.Running, "network-18c3"},
		{"request not handled yet", func(o map[string]any) {
			at(o, "metadata", "annotations")["pulumi.com/reconciliation-request"] = "r3"
		}, model.Running, "r3"},
		{"proposed commit awaits approval", func(o map[string]any) {
			at(o, "metadata", "annotations")["driftdeck.io/proposed-commit"] = "2222222222222222222222222222222222222222"
		}, model.AwaitingApproval, "222222222222"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := loadStack(t)
			c.edit(obj)
			u := Convert("", obj)
			if u.Run != c.run || !strings.Contains(u.RunReason, c.reason) {
				t.Fatalf("run %v %q, want %v containing %q", u.Run, u.RunReason, c.run, c.reason)
			}
		})
	}
}

func TestUpdateIndexFindsWedgedStacks(t *testing.T) {
	obj := loadStack(t)
	at(obj, "status", "currentUpdate")["name"] = "network-gone"
	at(obj, "status")["conditions"] = []any{cond("Reconciling", "True", "StackProcessing", "stack is being processed")}
	x := NewUpdateIndex()
	x.Replace("prod", "", nil)
	since := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

	u := Convert("prod", obj)
	if !x.Classify(u, since.Add(30*time.Second)) || u.Observed == model.Stuck {
		t.Fatal("within the grace period the missing Update is not yet a wedge, but needs the clock")
	}
	u = Convert("prod", obj)
	x.Classify(u, since.Add(5*time.Minute))
	if u.Observed != model.Stuck || !strings.Contains(u.RunReason, "network-gone") {
		t.Fatalf("got %v %q, want stuck naming the missing Update", u.Observed, u.RunReason)
	}

	x.Put(Update{Context: "prod", Namespace: "infra", Name: "network-gone", Stack: "network", Type: "up", Progressing: true, Started: since.Add(time.Minute)})
	u = Convert("prod", obj)
	x.Classify(u, since.Add(5*time.Minute))
	if u.Observed != model.Running || !u.RunSince.Equal(since.Add(time.Minute)) {
		t.Fatalf("a running Update: got %v since %v", u.Observed, u.RunSince)
	}
	if got := x.ForStack("prod", "infra", "network"); len(got) != 1 || got[0].Phase() != "running" {
		t.Fatalf("ForStack: %+v", got)
	}
}

func TestConvertUpdateConditions(t *testing.T) {
	up := ConvertUpdate("prod", map[string]any{
		"metadata": map[string]any{"name": "network-1", "namespace": "infra", "labels": map[string]any{"pulumi.com/stack-name": "network"}},
		"spec":     map[string]any{"type": "up"},
		"status": map[string]any{"conditions": []any{
			cond("Progressing", "False", "Complete", ""), cond("Failed", "True", "UpdateFailed", ""), cond("Complete", "True", "Updated", ""),
		}},
	})
	if up.Phase() != "failed" || up.Stack != "network" || up.Reason != "UpdateFailed" {
		t.Fatalf("%+v phase %s", up, up.Phase())
	}
}
