package doctor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// TestEveryStuckDemoUnitHasAFixThatWorks runs doctor on the demo, then the
// fix of every stuck unit the demo user may write, on the same demo, and
// checks that the unit no longer needs a human.
func TestEveryStuckDemoUnitHasAFixThatWorks(t *testing.T) {
	t.Cleanup(demo.Cleanup)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := demo.Start(ctx, demo.Options{Timings: demo.Timings{SyncDuration: 300 * time.Millisecond, UpdateDuration: 300 * time.Millisecond,
		Backoff: 300 * time.Millisecond, DriftEvery: -1}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := fleet.New(fleet.Options{})
	if err := f.Add(ctx, c, ""); err != nil {
		t.Fatal(err)
	}
	if err := f.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	f.Store.Tick()
	// The demo's cluster as if it were a kubeconfig's context: every fix,
	// the kubectl patch too, has a command then.
	var o cmdline.Origin
	findings := Examine(f.Store.Snapshot(), time.Now(), o)
	CheckAccess(ctx, findings, f.Cluster)

	stuck := map[string]bool{}
	for _, u := range f.Store.Snapshot() {
		if u.Run == model.Stuck {
			stuck[u.Key.Ref()] = true
		}
	}
	if len(stuck) == 0 {
		t.Fatal("the demo has no stuck unit")
	}
	exec := &actions.Executor{Cluster: f.Cluster}
	ops := &stackops.Ops{Cluster: f.Cluster}
	for _, fd := range findings {
		ref := fd.Key.Ref()
		if fd.State != "stuck" {
			continue
		}
		delete(stuck, ref)
		if fd.InSource {
			// Nothing on the cluster fixes a source that does not build:
			// doctor must say where the cause is and what picks the fix up.
			if !strings.Contains(fd.Hint, o.Driftdeck(fd.Key.Context, "refresh", ref)) || !strings.Contains(fd.Hint, "the cause is in ") {
				t.Errorf("%s: the cause is in its source, but the hint does not say where and what picks the fix up: %q", ref, fd.Hint)
			}
			continue
		}
		if fd.Command(o) == "" {
			t.Errorf("%s is stuck and doctor names no command (hint %q)", ref, fd.Hint)
			continue
		}
		if fd.Forbidden != "" {
			t.Logf("%s: %s (the demo user may not write there)", ref, fd.Forbidden)
			continue
		}
		t.Logf("%s: %s", ref, fd.Command(o))
		if err := apply(ctx, c, exec, ops, fd); err != nil {
			t.Errorf("%s: %v", ref, err)
			continue
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			f.Store.Tick()
			u, _ := f.Store.Get(fd.Key)
			if _, still := examine(u, time.Now(), o); !still {
				break
			}
			if time.Now().After(deadline) {
				again, _ := examine(u, time.Now(), o)
				t.Errorf("%s still needs a human after %s: %s (%s)", ref, fd.Command(o), again.State, again.Cause)
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for ref := range stuck {
		t.Errorf("%s is stuck and doctor does not list it", ref)
	}
}

// apply does what the finding's command line does, on the same demo.
func apply(ctx context.Context, c *kube.Cluster, exec *actions.Executor, ops *stackops.Ops, fd Finding) error {
	if fd.StatusPatch != "" {
		gvr, _ := engines.Resource(fd.Key.Engine)
		_, err := c.Dynamic.Resource(gvr).Namespace(fd.Key.Namespace).Patch(ctx, fd.Key.Name, types.JSONPatchType, []byte(fd.StatusPatch), metav1.PatchOptions{}, "status")
		return err
	}
	for _, k := range []actions.Kind{fd.Fix, fd.Then} {
		var err error
		switch k {
		case "":
			continue
		case actions.Unlock:
			var plan *stackops.Unstick
			if plan, err = ops.PlanUnstick(ctx, fd.Key, false, false); err == nil {
				_, err = ops.Apply(ctx, plan, fd.Reason())
			}
		case actions.ForceUnlock:
			_, err = exec.Execute(ctx, actions.Request{Kind: k, Key: fd.Key, Reason: fd.Reason(), LockID: fd.FixFlags[1]})
		default:
			_, err = exec.Execute(ctx, actions.Request{Kind: k, Key: fd.Key, Reason: fd.Reason()})
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}
