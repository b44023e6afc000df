package rootmod

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testtofu"
)

// The kubernetes backend on the real test apiserver: state in a Secret,
// lock in a Lease; a killed apply leaves its lock behind, which driftdeck
// shows with its id and breaks with exactly that id.
func TestClusterTofuKubernetesBackendKilledApplyLeavesALockThatIsShownAndBroken(t *testing.T) {
	tc := testcluster.Shared(t)
	ns := tc.Namespace(t)
	kubeconfig := testcluster.Kubeconfig(t, tc.Config(), "state")
	m := newModule(t, fmt.Sprintf(`
terraform {
  backend "kubernetes" {
    secret_suffix = "network"
    config_path   = %q
    namespace     = %q
  }
}
`, kubeconfig, ns)+testtofu.Sleepy)
	ctx, r := ctxOf(t), m.root()
	m.User("init", "-no-color")
	m.User("apply", "-auto-approve", "-no-color")

	u := m.tofu.Read(ctx, r)
	if u.Root.Backend != "kubernetes" || u.Root.Serial == 0 || u.Root.AppliedAt.IsZero() || u.Root.LockUnread != "" || u.Root.Lock != nil {
		t.Fatalf("the kubernetes backend's state: %+v", u.Root)
	}
	if time.Since(u.Root.AppliedAt) > 5*time.Minute {
		t.Fatalf("applied at %v: not the Secret's last write", u.Root.AppliedAt)
	}

	m.killedApply(ctx, r)

	u = m.tofu.Read(ctx, r)
	l := u.Root.Lock
	if l == nil || l.ID == "" || l.Operation != "OperationTypeApply" || l.Who == "" || l.Created.IsZero() {
		t.Fatalf("the killed apply's lock: %+v (%s)", l, u.Root.LockUnread)
	}
	if u.Observed != model.Running || !strings.Contains(u.RunReason, "state locked by "+l.Who) {
		t.Fatalf("a locked module: %v %q", u.Observed, u.RunReason)
	}
	if _, err := m.tofu.Plan(ctx, r, "alice", 0, noOpts); err == nil || !strings.Contains(err.Error(), "Error acquiring the state lock") {
		t.Fatalf("a plan under the dead lock: %v", err)
	}
	if err := m.tofu.ForceUnlock(ctx, r, "not-"+l.ID); err == nil {
		t.Fatal("a force-unlock of another id broke the lock")
	}
	if err := m.tofu.ForceUnlock(ctx, r, l.ID); err != nil {
		t.Fatal(err)
	}
	if u = m.tofu.Read(ctx, r); u.Root.Lock != nil || u.Observed == model.Running {
		t.Fatalf("after the force-unlock: %+v %v", u.Root.Lock, u.Observed)
	}
	saved, err := m.tofu.Plan(ctx, r, "alice", 0, noOpts)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Changes {
		t.Fatalf("the killed apply was cut off before it wrote the state, yet the plan changes: %s", saved.Summary)
	}
}
