package rootmod

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumistate/objstore"
	"github.com/driftdeck/driftdeck/backend/testkit/testbin"
	"github.com/driftdeck/driftdeck/backend/testkit/tests3"
	"github.com/driftdeck/driftdeck/backend/testkit/testtofu"
)

// The s3 backend with its lockfile on a real S3 server (versitygw): the
// lock a killed apply leaves in <key>.tflock is read through the
// driftdeck-state helper, shown with its id and broken by exactly it.
func TestTofuS3BackendKilledApplyLeavesALockfileThatIsShownAndBroken(t *testing.T) {
	s3 := tests3.Start(t, "tfstate")
	for _, kv := range s3.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv(objstore.HelperEnv, testbin.Build(t, "github.com/driftdeck/driftdeck/cmd/driftdeck-state"))
	m := newModule(t, s3.TofuBackend("tfstate", "network/terraform.tfstate")+testtofu.Sleepy)
	m.Env = append(m.Env, s3.Env()...)
	ctx, r := ctxOf(t), m.root()
	m.User("init", "-no-color")
	m.User("apply", "-auto-approve", "-no-color")

	u := m.tofu.Read(ctx, r)
	if f := u.Root; f.Backend != "s3" || f.Serial == 0 || f.LockUnread != "" || f.Lock != nil || time.Since(f.AppliedAt) > 5*time.Minute {
		t.Fatalf("the s3 backend's state: %+v", f)
	}
	m.killedApply(ctx, r)
	if _, err := os.Stat(s3.Dir + "/tfstate/network/terraform.tfstate.tflock"); err != nil {
		t.Fatalf("the killed apply left no lockfile: %v", err)
	}
	u = m.tofu.Read(ctx, r)
	l := u.Root.Lock
	if l == nil || l.ID == "" || l.Operation != "OperationTypeApply" || l.Who == "" || u.Observed != model.Running {
		t.Fatalf("the killed apply's lock: %+v %v (%s)", l, u.Observed, u.Root.LockUnread)
	}
	if _, err := m.tofu.Plan(ctx, r, "alice", 0, noOpts); err == nil || !strings.Contains(err.Error(), l.ID) {
		t.Fatalf("a plan under the dead lock names it: %v", err)
	}
	if err := m.tofu.ForceUnlock(ctx, r, l.ID); err != nil {
		t.Fatal(err)
	}
	if u = m.tofu.Read(ctx, r); u.Root.Lock != nil {
		t.Fatalf("after the force-unlock: %+v", u.Root.Lock)
	}
	if _, err := m.tofu.Plan(ctx, r, "alice", 0, noOpts); err != nil {
		t.Fatal(err)
	}
}
