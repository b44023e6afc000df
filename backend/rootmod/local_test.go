package rootmod

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testtofu"
)

func TestTofuLocalBackendReadPlanApplyAndStalePlan(t *testing.T) {
	m := newModule(t, testtofu.Sleepy)
	ctx, r := ctxOf(t), m.root()
	if r.Key().Ref() != "root/default/"+r.Name {
		t.Fatalf("key %s", r.Key().Ref())
	}

	u := m.tofu.Read(ctx, r)
	if u.Root.ReadError != "" || u.Root.Serial != 0 || u.Applied != "none" || u.Root.Backend != "local" {
		t.Fatalf("a module never applied: %+v", u.Root)
	}

	m.User("init", "-no-color")
	m.User("apply", "-auto-approve", "-no-color")
	u = m.tofu.Read(ctx, r)
	f := u.Root
	if f.Serial == 0 || f.Lineage == "" || f.AppliedAt.IsZero() {
		t.Fatalf("after an apply: %+v", f)
	}
	if got := strings.Join(f.Resources, " "); got != "terraform_data.server terraform_data.zone[0] terraform_data.zone[1]" {
		t.Fatalf("resources %q", got)
	}
	if len(f.Outputs) != 2 || f.Outputs[0] != (model.RootOutput{Name: "endpoint", Value: `"db-small.internal"`}) || f.Outputs[1] != (model.RootOutput{Name: "password", Sensitive: true}) {
		t.Fatalf("outputs (a sensitive value is never kept): %+v", f.Outputs)
	}
	if u.Sync != model.SyncUnknown || u.Observed != model.Idle {
		t.Fatalf("never planned: %v %v", u.Sync, u.Observed)
	}

	saved, err := m.tofu.Plan(ctx, r, "alice", 0, noOpts)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Changes || saved.Serial != f.Serial {
		t.Fatalf("a plan of an unchanged module: %+v", saved.RootPlan)
	}
	if u = m.tofu.Read(ctx, r); u.Sync != model.InSync {
		t.Fatalf("after an empty plan: %v %q", u.Sync, u.SyncNative)
	}

	// Drift out of band: somebody applies other values by hand.
	m.User("apply", "-auto-approve", "-no-color", "-var", "size=large")
	if u = m.tofu.Read(ctx, r); u.Sync != model.SyncUnknown {
		t.Fatalf("the plan was made against an older state: %v", u.Sync)
	}
	saved, err = m.tofu.Plan(ctx, r, "alice", 0, noOpts)
	if err != nil {
		t.Fatal(err)
	}
	if !saved.Changes || saved.Summary != "Plan: 1 to add, 0 to change, 1 to destroy." {
		t.Fatalf("the drift's plan: %+v", saved.RootPlan)
	}
	if len(saved.Plan.Resources) == 0 || saved.Plan.Resources[0].Address != "terraform_data.server" {
		t.Fatalf("planned resources: %+v", saved.Plan.Resources)
	}
	u = m.tofu.Read(ctx, r)
	if u.Sync != model.Drifted || u.Observed != model.AwaitingApproval || !strings.Contains(u.RunReason, saved.ID) {
		t.Fatalf("a drifted module: %v %v %q", u.Sync, u.Observed, u.RunReason)
	}

	// Exactly the plan shown is applied.
	if _, err := m.tofu.Apply(ctx, r, saved.ID, 0); err != nil {
		t.Fatal(err)
	}
	if out := m.User("output", "-raw", "endpoint"); out != "db-small.internal" {
		t.Fatalf("after the apply the endpoint is %q", out)
	}
	if _, err := m.tofu.Apply(ctx, r, saved.ID, 0); err == nil {
		t.Fatal("a plan was applied twice")
	}

	// A plan made stale by another apply is refused by tofu.
	m.User("apply", "-auto-approve", "-no-color", "-var", "size=large")
	stale, err := m.tofu.Plan(ctx, r, "alice", 0, noOpts)
	if err != nil {
		t.Fatal(err)
	}
	m.User("apply", "-auto-approve", "-no-color", "-var", "size=huge")
	if _, err := m.tofu.Apply(ctx, r, stale.ID, 0); !errors.Is(err, ErrStalePlan) {
		t.Fatalf("a stale plan: %v", err)
	}
	if out := m.User("output", "-raw", "endpoint"); out != "db-huge.internal" {
		t.Fatalf("the stale plan changed the state: %q", out)
	}
}

func TestTofuLocalLockIsReadWhileHeldAndGoneWithItsProcess(t *testing.T) {
	m := newModule(t, testtofu.Sleepy)
	ctx, r := ctxOf(t), m.root()
	m.User("init", "-no-color")
	m.User("apply", "-auto-approve", "-no-color")
	_ = m.tofu.Read(ctx, r) // initialises driftdeck's working data

	held := m.killedApply(ctx, r)
	if held.Operation != "OperationTypeApply" || !strings.Contains(held.Who, "(pid ") || held.Created.IsZero() {
		t.Fatalf("the lock while the apply ran: %+v", held)
	}
	// The kernel dropped the file lock with the process: tofu takes the
	// lock over the info file left behind, so it is no lock.
	if l, _, err := m.tofu.ReadLock(ctx, r); err != nil || l != nil {
		t.Fatalf("after the apply was killed: %+v %v", l, err)
	}
	if _, err := m.tofu.Plan(ctx, r, "alice", 0, noOpts); err != nil {
		t.Fatalf("a plan after the killed apply: %v", err)
	}
}

// A state that did not move is not pulled again (no tofu runs: its binary
// may be gone meanwhile); one another apply wrote is.
func TestTofuStateIsPulledAgainOnlyWhenItsStampMoved(t *testing.T) {
	m := newModule(t, testtofu.Sleepy)
	ctx, r := ctxOf(t), m.root()
	m.User("init", "-no-color")
	m.User("apply", "-auto-approve", "-no-color")
	first := m.tofu.Read(ctx, r)
	if first.Root.ReadError != "" || first.Root.Serial == 0 {
		t.Fatalf("first read: %+v", first.Root)
	}
	bin := m.tofu.Bin
	m.tofu.Bin = filepath.Join(t.TempDir(), "no-tofu-here")
	if again := m.tofu.Read(ctx, r); again.Root.ReadError != "" || again.Root.Serial != first.Root.Serial {
		t.Fatalf("an unchanged state was pulled again: %+v", again.Root)
	}
	m.User("apply", "-auto-approve", "-no-color", "-var", "size=large")
	if moved := m.tofu.Read(ctx, r); moved.Root.ReadError == "" {
		t.Fatalf("a state another apply wrote was not pulled again: %+v", moved.Root)
	}
	m.tofu.Bin = bin
	if moved := m.tofu.Read(ctx, r); moved.Root.Serial != first.Root.Serial+1 {
		t.Fatalf("after another apply: serial %d, want %d", moved.Root.Serial, first.Root.Serial+1)
	}
}
