package rootmod

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testproc"
	"github.com/driftdeck/driftdeck/backend/testkit/testtofu"
)

// An apply cancelled while a provisioner runs (the workbench quit, an
// agent stopped) ends as Ctrl-C would end it: the provisioner's command
// too, the lock let go, and the call returns at once rather than when the
// command would have ended.
func TestTofuACancelledApplyEndsWithItsProvisioner(t *testing.T) {
	config := strings.Replace(testtofu.Sleepy, `variable "hold" { default = "0" }`, `variable "hold" { default = "600" }`, 1)
	m := newModule(t, config)
	ctx, r := ctxOf(t), m.root()
	m.User("init", "-no-color")
	m.User("apply", "-auto-approve", "-no-color", "-var", "hold=0", "-var", "size=tiny")
	saved, err := m.tofu.Plan(ctx, r, "alice", 0, noOpts)
	if err != nil {
		t.Fatal(err)
	}

	applyCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := m.tofu.Apply(applyCtx, r, saved.Plan.ID, 0); done <- err }()
	testcluster.Eventually(t, time.Minute, "the apply holding the lock", func() bool {
		l, _, err := m.tofu.ReadLock(ctx, r)
		return err == nil && l != nil
	})
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the cancelled apply succeeded")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled apply still runs 30 s later (waiting for its provisioner's sleep)")
	}
	testproc.NoneLeftUnder(t, m.Dir, 10*time.Second)
	if l, _, err := m.tofu.ReadLock(ctx, r); err != nil || l != nil {
		t.Errorf("the lock after the cancelled apply: %+v %v, want none", l, err)
	}
}

// A run asked for after its context ended (the workbench quitting as a
// read starts) fails with the context's error; tofu never starts.
func TestTofuARunWhoseContextEndedFailsAtOnce(t *testing.T) {
	m := newModule(t, testtofu.Sleepy)
	ctx, cancel := context.WithCancel(ctxOf(t))
	cancel()
	if _, err := m.tofu.Plan(ctx, m.root(), "alice", 0, noOpts); !errors.Is(err, context.Canceled) {
		t.Fatalf("a plan on an ended context: %v, want context.Canceled", err)
	}
}
