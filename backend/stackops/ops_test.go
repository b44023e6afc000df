package stackops

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/audit/audittest"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// The demo control plane's network-prod Stack keeps its state in a real
// file:// backend, left locked, with a pending operation, by a run that died.
func demoOps(t *testing.T) (*Ops, *kube.Cluster, string) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, err := demo.Start(ctx, demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return &Ops{Cluster: func(string) (*kube.Cluster, bool) { return c, true }, Audit: log}, c, path
}

// networkProd is the demo's network-prod Stack in c.
func networkProd(c *kube.Cluster) model.Key {
	return model.Key{Context: c.Context, Engine: model.EnginePulumi, Namespace: "infra", Name: "network-prod"}
}

func TestUnstickBreaksTheDeadLockAndClearsPending(t *testing.T) {
	ops, c, auditPath := demoOps(t)
	ctx := context.Background()
	k := networkProd(c)
	info, loc, err := ops.State(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Locks) != 1 || info.Locks[0].PID == 0 || info.Locks[0].User == "" || info.Locks[0].Host == "" || len(info.Pending) != 1 {
		t.Fatalf("state shows %+v", info)
	}
	if !strings.HasPrefix(loc.Backend, "file://") || loc.Ref.Project != "network" {
		t.Fatalf("location %+v", loc)
	}
	plan, err := ops.PlanUnstick(ctx, k, true, false)
	if err != nil {
		t.Fatal(err)
	}
	changes := strings.Join(plan.Changes(), "\n")
	if !strings.Contains(changes, info.Locks[0].ID) || !strings.Contains(changes, info.Pending[0].URN) {
		t.Fatalf("the plan must name the lock and the pending operation:\n%s", changes)
	}
	if _, err := ops.Apply(ctx, plan, "INC-9: CI runner died"); err != nil {
		t.Fatal(err)
	}
	after, _, err := ops.State(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Locks) != 0 || len(after.Pending) != 0 {
		t.Fatalf("after unstick: %+v", after)
	}
	events, err := c.Kube.CoreV1().Events("infra").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range events.Items {
		found = found || (e.Reason == "DriftdeckUnlock" && strings.Contains(e.Message, "INC-9"))
	}
	if !found {
		t.Error("no DriftdeckUnlock Event on the Stack")
	}
	lines := readAudit(t, auditPath)
	if len(lines) != 1 || lines[0].Action != "unlock" || lines[0].Outcome != "done" || !strings.Contains(string(lines[0].Patch), info.Locks[0].ID) {
		t.Fatalf("audit: %+v", lines)
	}
	if _, err := ops.PlanUnstick(ctx, k, true, false); err == nil || !strings.Contains(err.Error(), "nothing to unstick") {
		t.Fatalf("a second unstick: %v", err)
	}
}

func TestUnstickIsRefusedReadOnlyAndWithoutPermission(t *testing.T) {
	ops, c, auditPath := demoOps(t)
	ctx := context.Background()
	k := networkProd(c)
	plan, err := ops.PlanUnstick(ctx, k, false, false)
	if err != nil {
		t.Fatal(err)
	}
	ops.ReadOnly = true
	if _, err := ops.Apply(ctx, plan, "x"); !errors.Is(err, writeguard.ErrReadOnly) {
		t.Fatalf("read-only: %v", err)
	}
	ops.ReadOnly = false
	if info, _, _ := ops.State(ctx, k); len(info.Locks) != 1 {
		t.Fatal("a refused unstick broke the lock")
	}
	// The demo denies patch in the finance namespace.
	fin := model.Key{Context: c.Context, Engine: model.EnginePulumi, Namespace: demo.ReadOnlyNamespace, Name: "cost-reports"}
	_, err = ops.guard().Do(ctx, ops.attempt(fin, "unlock", "x"), func(*writeguard.Write) error {
		t.Error("a write without permission was let through")
		return nil
	})
	var refusal *writeguard.Refusal
	if !errors.As(err, &refusal) || !refusal.Permission || !strings.Contains(err.Error(), "may not patch") {
		t.Fatalf("without permission: %v", err)
	}
	if lines := readAudit(t, auditPath); len(lines) != 2 || lines[0].Outcome != "refused" || lines[1].Outcome != "refused" {
		t.Fatalf("the refused attempt must be audited: %+v", lines)
	}
}

func readAudit(t *testing.T, path string) []audit.Entry {
	t.Helper()
	return audittest.Entries(t, path)
}
