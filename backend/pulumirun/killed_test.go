package pulumirun_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
)

// killDescendants sends SIGKILL to this process's descendants running the
// binary bin (the pulumi CLI the helper started) and returns how many.
func killDescendants(t *testing.T, bin string) int {
	t.Helper()
	want, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	parent := map[int]int{}
	exe := map[int]string{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
		if len(fields) < 2 {
			continue
		}
		parent[pid], _ = strconv.Atoi(fields[1])
		exe[pid], _ = os.Readlink(filepath.Join(filepath.Dir(p), "exe"))
	}
	self, killed := os.Getpid(), 0
	for pid, path := range exe {
		if path != want {
			continue
		}
		for up := parent[pid]; up > 1; up = parent[up] {
			if up == self {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					killed++
				}
				break
			}
		}
	}
	return killed
}

// repair plans a repair of the killed run's state and applies it.
func repair(t *testing.T, ctx context.Context, plan func() (*pulumistate.Repair, error)) {
	t.Helper()
	r, err := plan()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Apply(ctx); err != nil {
		t.Fatal(err)
	}
}

// runKilled runs op and kills the pulumi CLI once step "a" is reported,
// returning op's error and how long op took after the kill.
func runKilled(t *testing.T, tg pulumirun.Target, op func(onEvent func(pulumirun.Event)) error) (error, time.Duration) {
	t.Helper()
	var once sync.Once
	var killedAt time.Time
	done := make(chan error, 1)
	go func() {
		done <- op(func(e pulumirun.Event) {
			if e.Step != nil && e.Step.Name == "a" {
				once.Do(func() {
					if killDescendants(t, tg.CLI) == 0 {
						t.Error("no pulumi CLI process found to kill")
					}
					killedAt = time.Now()
				})
			}
		})
	}()
	select {
	case err := <-done:
		if killedAt.IsZero() {
			t.Fatalf("the run ended (%v) before the CLI could be killed", err)
		}
		return err, time.Since(killedAt)
	case <-time.After(2 * time.Minute):
		t.Fatal("the run hung after its pulumi CLI was killed")
		return nil, 0
	}
}

// The pulumi CLI killed with SIGKILL in the middle of a preview and of an
// apply: each run ends at once with an error saying the CLI was killed,
// and what the kill left in the state (a lock, pending operations, a torn
// sidecar) is reported and cleared by an unlock, after which the stack
// runs again.
func TestHelperWhosePulumiCLIIsKilledSaysSoAndIsRecoverable(t *testing.T) {
	pulumiruntest.Helper(t)
	ctx := context.Background()
	for _, phase := range []string{"preview", "apply"} {
		t.Run(phase, func(t *testing.T) {
			tg := pulumiruntest.FileTarget(t, "killed", "dev")
			tg.Inline = map[string]string{"preview": "slow-preview", "apply": "slow"}[phase]
			plan := filepath.Join(t.TempDir(), "dev.json")
			op := func(onEvent func(pulumirun.Event)) error {
				_, err := pulumirun.Preview(ctx, tg, pulumirun.PreviewOptions{PlanPath: plan, OnEvent: onEvent})
				return err
			}
			if phase == "apply" {
				if _, err := pulumirun.Preview(ctx, tg, pulumirun.PreviewOptions{PlanPath: plan}); err != nil {
					t.Fatal(err)
				}
				op = func(onEvent func(pulumirun.Event)) error {
					_, err := pulumirun.ApplyPlan(ctx, tg, plan, onEvent)
					return err
				}
			}
			err, after := runKilled(t, tg, op)
			t.Logf("%s with its CLI killed: %v (returned %v after the kill)", phase, err, after.Round(time.Millisecond))
			if err == nil || !strings.Contains(err.Error(), "the pulumi CLI was killed (signal: killed)") {
				t.Fatalf("want an error saying the pulumi CLI was killed, got %v", err)
			}

			be, err := pulumistate.Open(ctx, tg.BackendURL)
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			ref := pulumistate.StackRef{Org: "organization", Project: tg.Project, Stack: tg.Stack}
			info, err := be.Stack(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("left behind: %d lock(s), %d pending operation(s), %d torn sidecar(s)", len(info.Locks), len(info.Pending), len(info.Torn))
			// A kill that lands while the CLI saves its checkpoint tears
			// the checkpoint's sidecar, which the next CLI reads as "EOF".
			if len(info.Torn) > 0 {
				repair(t, ctx, func() (*pulumistate.Repair, error) { return be.RemoveTorn(ctx, ref) })
			}
			// An apply holds the stack's lock, which a kill leaves behind; a
			// preview on a file backend takes none.
			if want := phase == "apply"; (len(info.Locks) > 0) != want {
				t.Errorf("%s killed left %d lock(s); want a lock left: %v", phase, len(info.Locks), want)
			}
			for _, l := range info.Locks {
				if l.Holder != pulumistate.HolderDead {
					t.Errorf("the killed CLI's lock is reported %v, want its holder dead", l.Holder)
				}
				repair(t, ctx, func() (*pulumistate.Repair, error) { return be.BreakLock(ctx, ref, false) })
				break
			}
			if len(info.Pending) > 0 {
				repair(t, ctx, func() (*pulumistate.Repair, error) { return be.ClearPending(ctx, ref) })
			}
			tg.Inline = "stashes" // a program that ends
			if _, err := pulumirun.Preview(ctx, tg, pulumirun.PreviewOptions{}); err != nil {
				t.Fatalf("after the unlock the stack does not run: %v", err)
			}
		})
	}
}
