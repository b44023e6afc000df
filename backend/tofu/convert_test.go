package tofu

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

var now = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

const pending = "plan-main-9f2c1e7b5a"

func load(t testing.TB) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "terraform.json"))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func set(obj map[string]any, v any, path ...string) {
	m := obj
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

func conditions(cs ...[4]string) []any {
	var out []any
	for _, c := range cs {
		out = append(out, map[string]any{"type": c[0], "status": c[1], "reason": c[2], "message": c[3], "lastTransitionTime": now.Add(-20 * time.Minute).Format(time.RFC3339)})
	}
	return out
}

func TestPendingPlanAwaitsApprovalWithItsFullID(t *testing.T) {
	u := Convert("prod", load(t))
	model.Derive(u, now, model.DefaultThresholds)
	f := u.Tofu
	if u.Key.Ref() != "terraform/flux-system/eks-cluster" || len(u.ReadErrors) > 0 {
		t.Fatalf("%v %v", u.Key, u.ReadErrors)
	}
	if u.Run != model.AwaitingApproval || f.PendingPlan != pending || !strings.Contains(u.RunReason, "plan "+pending+" waits for approval") {
		t.Fatalf("run %v %q pending %q", u.Run, u.RunReason, f.PendingPlan)
	}
	if !strings.Contains(u.StuckRule, "the full id "+pending) || f.PlanStale || u.Sync != model.Drifted || u.Automation != model.Manual || u.AutomationNative != "manual approval" {
		t.Fatalf("rule %q stale %v sync %v automation %v %q", u.StuckRule, f.PlanStale, u.Sync, u.Automation, u.AutomationNative)
	}
	if f.Source.String() != "GitRepository/flux-system/infra" || f.Workspace != "default" || f.StoreReadablePlan != "human" || !f.DriftDetection {
		t.Fatalf("%+v", f)
	}
}

func TestTerraformStates(t *testing.T) {
	for _, c := range []struct {
		name       string
		edit       func(map[string]any)
		run        model.RunState
		reason     string
		rule       string
		automation string
	}{
		{"stale plan", func(o map[string]any) { set(o, float64(8), "metadata", "generation") }, model.AwaitingApproval,
			"stale (planned at generation 7, the spec is at 8)", "approvePlan", "manual approval"},
		{"approved, not applied for 30m", func(o map[string]any) { set(o, pending, "spec", "approvePlan") }, model.Stuck,
			"plan " + pending + " approved, to be applied", "running for longer than the 10m threshold", "manual approval (approvePlan: " + pending + ")"},
		{"auto", func(o map[string]any) { set(o, "auto", "spec", "approvePlan") }, model.Stuck,
			"TerraformPlannedWithChanges", "running for longer than the 10m threshold", "approvePlan: auto"},
		{"plan only", func(o map[string]any) { set(o, true, "spec", "planOnly") }, model.Idle,
			"plan only: plan " + pending + " is never applied", "", "plan only"},
		{"drift detection only", func(o map[string]any) {
			set(o, "disable", "spec", "approvePlan")
			set(o, map[string]any{}, "status", "plan")
			set(o, conditions([4]string{"Ready", "True", "NoDrift", "No drift: main@sha1:9f2c"}), "status", "conditions")
		}, model.Idle, "", "", "drift detection only"},
		{"drift found", func(o map[string]any) {
			set(o, map[string]any{}, "status", "plan")
			set(o, conditions([4]string{"Ready", "False", ReasonDriftDetected, "Drift detected: aws_eks_node_group.default changed"}), "status", "conditions")
		}, model.Idle, "drift detected: DriftDetected: Drift detected", "", "manual approval"},
		{"lock held", func(o map[string]any) {
			set(o, map[string]any{"pending": "f2ab9c3e-1d4b-7a2c-9e11-5b6c7d8e9f00"}, "status", "lock")
			set(o, map[string]any{}, "status", "plan")
			set(o, conditions([4]string{"Ready", "False", ReasonLockHeld, "Error acquiring the state lock"}, [4]string{"StateLocked", "True", ReasonLockHeld, "Error acquiring the state lock"}), "status", "conditions")
		}, model.Stuck, "state lock f2ab9c3e-1d4b-7a2c-9e11-5b6c7d8e9f00 held", "lockIdentifier: f2ab9c3e-1d4b-7a2c-9e11-5b6c7d8e9f00", "manual approval"},
		{"retries exhausted", func(o map[string]any) {
			set(o, float64(3), "status", "reconciliationFailures")
			set(o, conditions([4]string{"Ready", "False", "TFExecApplyFailed", "error running Apply"}, [4]string{"Stalled", "True", ReasonRetryLimitReached, "Resource reached maximum number of retries."}), "status", "conditions")
		}, model.Stuck, "retries exhausted after 3 failure(s)", "spec.remediation.retries (3) are used up", "manual approval"},
		{"apply failing past the threshold", func(o map[string]any) {
			set(o, "auto", "spec", "approvePlan")
			set(o, map[string]any{}, "status", "plan")
			set(o, float64(1), "status", "reconciliationFailures")
			set(o, conditions([4]string{"Ready", "False", "TFExecApplyFailed", "error running Apply: exit status 1"}), "status", "conditions")
		}, model.Stuck, "TFExecApplyFailed: error running Apply: exit status 1 (1 failure(s))", "failing (TFExecApplyFailed) on revision main@sha1:9f2c", "approvePlan: auto"},
		{"suspended", func(o map[string]any) { set(o, true, "spec", "suspend") }, model.Idle, "suspended", "", "suspend: true (manual approval)"},
		{"v1alpha1 has no lastPlannedGeneration: never called stale", func(o map[string]any) {
			set(o, "infra.contrib.fluxcd.io/v1alpha1", "apiVersion")
			set(o, float64(9), "metadata", "generation")
			delete(o["status"].(map[string]any), "lastPlannedGeneration")
		}, model.AwaitingApproval, "plan " + pending + " waits for approval", "approvePlan", "manual approval"},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := load(t)
			c.edit(obj)
			u := Convert("prod", obj)
			model.Derive(u, now, model.DefaultThresholds)
			if u.Run != c.run || !strings.Contains(u.RunReason, c.reason) || (c.rule == "") != (u.StuckRule == "") || !strings.Contains(u.StuckRule, c.rule) {
				t.Errorf("run %v %q rule %q, want %v %q %q", u.Run, u.RunReason, u.StuckRule, c.run, c.reason, c.rule)
			}
			if !strings.HasPrefix(u.AutomationNative, c.automation) {
				t.Errorf("automation %q, want %q", u.AutomationNative, c.automation)
			}
			checkSlim(t, obj)
		})
	}
}

func checkSlim(t *testing.T, obj map[string]any) {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var whole map[string]any
	if err := json.Unmarshal(data, &whole); err != nil {
		t.Fatal(err)
	}
	slim, err := DecodeSlim(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Convert("c", slim), Convert("c", whole); !sameUnit(got, want) {
		t.Fatalf("slim %+v\nwhole %+v", got, want)
	}
}

// sameUnit compares units with their read errors in any order (map order).
func sameUnit(a, b *model.Unit) bool {
	x, y := *a, *b
	x.ReadErrors, y.ReadErrors = slices.Sorted(slices.Values(a.ReadErrors)), slices.Sorted(slices.Values(b.ReadErrors))
	return reflect.DeepEqual(&x, &y)
}

func TestPlanWithoutPlannedGenerationIsNotCalledStale(t *testing.T) {
	obj := load(t)
	set(obj, float64(9), "metadata", "generation")
	delete(obj["status"].(map[string]any), "lastPlannedGeneration")
	if u := Convert("prod", obj); u.Tofu.PlanStale || strings.Contains(u.RunReason, "stale") {
		t.Fatalf("stale %v: %q", u.Tofu.PlanStale, u.RunReason)
	}
	set(obj, float64(7), "status", "lastPlannedGeneration")
	if u := Convert("prod", obj); !u.Tofu.PlanStale {
		t.Fatal("a plan of generation 7 at generation 9 is not stale")
	}
}

// A Terraform driftdeck suspended reads paused, whatever its approval
// mode; one suspended by somebody else reads suspended with its mode.
func TestDriftdeckPauseOfATerraformReadsPaused(t *testing.T) {
	for _, c := range []struct {
		name   string
		record bool
		want   model.Automation
		native string
	}{
		{"paused by driftdeck", true, model.Paused, "suspend: true (paused by driftdeck)"},
		{"suspended by somebody else", false, model.Suspended, "suspend: true (manual approval)"},
	} {
		obj := load(t)
		set(obj, true, "spec", "suspend")
		if c.record {
			set(obj, "oncall@example.com", "metadata", "annotations", "driftdeck.io/paused-by")
			set(obj, "INC-8", "metadata", "annotations", "driftdeck.io/paused-reason")
			set(obj, "null", "metadata", "annotations", "driftdeck.io/paused-previous")
		}
		u := Convert("prod", obj)
		if u.Automation != c.want || u.AutomationNative != c.native {
			t.Errorf("%s: automation %v %q, want %v %q", c.name, u.Automation, u.AutomationNative, c.want, c.native)
		}
		if c.record && (u.Pause == nil || u.Pause.By != "oncall@example.com") {
			t.Errorf("%s: the pause record is not read: %+v", c.name, u.Pause)
		}
	}
}

// The outputs are read by name; a value written in the list by mistake is
// a read error, not an output.
func TestTheOutputsAreReadByNameOnly(t *testing.T) {
	obj := load(t)
	set(obj, []any{"vpc_id", "db_password", 42}, "status", "availableOutputs")
	set(obj, map[string]any{"name": "eks-outputs"}, "spec", "writeOutputsToSecret")
	u := Convert("prod", obj)
	if f := u.Tofu; !slices.Equal(f.Outputs, []string{"vpc_id", "db_password"}) || f.OutputsSecret != "eks-outputs" || len(u.ReadErrors) != 1 {
		t.Fatalf("outputs %v in %q, read errors %v", f.Outputs, f.OutputsSecret, u.ReadErrors)
	}
}
