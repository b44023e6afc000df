package stackops

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// The state bucket goes away between the plan of an unlock and its
// confirmation (a file backend's volume unmounted): the unlock ends with an
// error saying so, writes nothing (the lock and the pending operation are
// still there when the bucket is back), records no Event, and the audit log
// says failed.
func TestUnlockWithTheStateBucketGoneWritesNothingAndSaysFailed(t *testing.T) {
	ops, c, auditPath := demoOps(t)
	ctx := context.Background()
	k := networkProd(c)
	before, loc, err := ops.State(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := ops.PlanUnstick(ctx, k, true, false)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(loc.Backend)
	if err != nil || u.Scheme != "file" {
		t.Fatalf("the demo's backend %q is no file:// bucket", loc.Backend)
	}
	bucket := u.Path
	if err := os.Rename(bucket, bucket+".unmounted"); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	_, err = ops.Apply(ctx, plan, "INC-9: CI runner died")
	took := time.Since(t0)
	if rerr := os.Rename(bucket+".unmounted", bucket); rerr != nil {
		t.Fatal(rerr)
	}
	t.Logf("unlock with the bucket gone: %v (after %v)", err, took.Round(time.Millisecond))
	if err == nil {
		t.Fatal("the unlock reported success with the state bucket gone")
	}
	if writeguard.IsRefusal(err) || !strings.Contains(err.Error(), bucket) {
		t.Errorf("want a failure naming the bucket, got %v", err)
	}

	after, _, err := ops.State(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Locks) != len(before.Locks) || after.Locks[0].ID != before.Locks[0].ID || len(after.Pending) != len(before.Pending) {
		t.Fatalf("half written: before %d locks, %d pending; after %d locks, %d pending", len(before.Locks), len(before.Pending), len(after.Locks), len(after.Pending))
	}
	lines := readAudit(t, auditPath)
	if len(lines) != 1 || lines[0].Action != "unlock" || lines[0].Outcome != writeguard.OutcomeFailed || lines[0].Error == "" {
		t.Fatalf("audit: %+v, want one failed unlock with its error", lines)
	}
	events, err := c.Kube.CoreV1().Events("infra").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if e.Reason == "DriftdeckUnlock" {
			t.Errorf("an Event says the state was unstuck: %s", e.Message)
		}
	}

	// The bucket back, the same confirmed plan is refused or done, never
	// applied on top of a half write: here nothing moved, so it is done.
	plan, err = ops.PlanUnstick(ctx, k, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Apply(ctx, plan, "INC-9: CI runner died"); err != nil {
		t.Fatalf("the unlock once the bucket is back: %v", err)
	}
}
