package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// values is the program's input: what each Stash stores.
type values struct{ first, second string }

// stashes is a program of three Stash resources, each waiting for the one
// before (so an apply reaches a resource only after the previous is done):
// "first", "second", and "secret", which stores second's value as a secret
// and is replaced when it changes.
func stashes(v *values) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		first, err := pulumi.NewStash(ctx, "first", &pulumi.StashArgs{Input: pulumi.String(v.first)})
		if err != nil {
			return err
		}
		second, err := pulumi.NewStash(ctx, "second", &pulumi.StashArgs{Input: pulumi.String(v.second)}, pulumi.DependsOn([]pulumi.Resource{first}))
		if err != nil {
			return err
		}
		_, err = pulumi.NewStash(ctx, "secret", &pulumi.StashArgs{Input: pulumi.ToSecret(pulumi.String("pw-" + v.second))},
			pulumi.ReplaceOnChanges([]string{"input"}), pulumi.DependsOn([]pulumi.Resource{second}))
		return err
	}
}

func opsByName(steps []pulumirun.Step) map[string]pulumirun.Op {
	out := map[string]pulumirun.Op{}
	for _, s := range steps {
		out[s.Name] = s.Op
	}
	return out
}

// assertNoChanges previews the target and fails unless every line is "same".
func assertNoChanges(t *testing.T, tg Target) {
	t.Helper()
	res, err := Preview(context.Background(), tg, pulumirun.PreviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Steps {
		if s.Op != pulumirun.OpSame {
			t.Errorf("state differs from the program: %s %s", s.Op, s.Name)
		}
	}
}

func TestPulumiPreviewThenApplyPlan(t *testing.T) {
	tg := fileTarget(t, "preview", "dev")
	v := &values{"one", "one"}
	tg.Program = stashes(v)
	plan := filepath.Join(t.TempDir(), "plans", "p1.json")
	ctx := context.Background()

	var delivered []pulumirun.Event
	res, err := Preview(ctx, tg, pulumirun.PreviewOptions{PlanPath: plan, OnEvent: func(e pulumirun.Event) { delivered = append(delivered, e) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first preview %v", res.Elapsed)
	ops := opsByName(res.Steps)
	for _, name := range []string{"first", "second", "secret"} {
		if ops[name] != pulumirun.OpCreate {
			t.Errorf("%s: %s; want create", name, ops[name])
		}
	}
	secret := stepByName(t, res.Steps, "secret")
	if len(secret.Diffs) != 1 || secret.Diffs[0].New != pulumirun.SecretPlaceholder {
		t.Errorf("secret's inputs shown as %+v; want [secret]", secret.Diffs)
	}
	if len(delivered) == 0 || delivered[len(delivered)-1].Summary == nil || res.Summary.Changes[pulumirun.OpCreate] < 3 {
		t.Fatalf("summary not delivered last: %+v / %+v", delivered, res.Summary)
	}

	applied, err := ApplyPlan(ctx, tg, plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("apply %v", applied.Elapsed)
	for _, s := range applied.Steps {
		if s.State != pulumirun.Done {
			t.Errorf("%s ended %s", s.Name, s.State)
		}
	}
	assertNoChanges(t, tg)

	// A change: first and second are updated, the secret replaced, all
	// shown as one line each with old and new values.
	v.first, v.second = "two", "two"
	plan2 := filepath.Join(t.TempDir(), "p2.json")
	res, err = Preview(ctx, tg, pulumirun.PreviewOptions{PlanPath: plan2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("second preview %v", res.Elapsed)
	first := stepByName(t, res.Steps, "first")
	if first.Op != pulumirun.OpUpdate || len(first.Diffs) != 1 || first.Diffs[0].Old != `"one"` || first.Diffs[0].New != `"two"` {
		t.Errorf("first = %+v; want update input \"one\" => \"two\"", first)
	}
	secret = stepByName(t, res.Steps, "secret")
	if secret.Op != pulumirun.OpReplace || len(secret.Parts) != 3 || strings.Join(secret.ReplaceKeys, ",") != "input" {
		t.Errorf("secret = %+v; want one replace line (3 parts) forced by input", secret)
	}
	if d := secret.Diffs; len(d) != 1 || d[0].Old != pulumirun.SecretPlaceholder || d[0].New != pulumirun.SecretPlaceholder || !d[0].Replace {
		t.Errorf("secret diffs = %+v", d)
	}
	if _, err := ApplyPlan(ctx, tg, plan2, nil); err != nil {
		t.Fatal(err)
	}
	assertNoChanges(t, tg)
}

func TestPulumiApplyRefusesAChangedProgram(t *testing.T) {
	tg := fileTarget(t, "refuse", "dev")
	v := &values{"one", "one"}
	tg.Program = stashes(v)
	ctx := context.Background()
	setup := filepath.Join(t.TempDir(), "setup.json")
	if _, err := Preview(ctx, tg, pulumirun.PreviewOptions{PlanPath: setup}); err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyPlan(ctx, tg, setup, nil); err != nil {
		t.Fatal(err)
	}

	// Approved: first and second become "two".
	*v = values{"two", "two"}
	approved := filepath.Join(t.TempDir(), "approved.json")
	if _, err := Preview(ctx, tg, pulumirun.PreviewOptions{PlanPath: approved}); err != nil {
		t.Fatal(err)
	}

	// The program changes first before the apply: the engine refuses at
	// once and nothing is applied.
	*v = values{"three", "two"}
	_, err := ApplyPlan(ctx, tg, approved, nil)
	var changed *pulumirun.PlanChangedError
	if !errors.As(err, &changed) {
		t.Fatalf("ApplyPlan with a changed program: %v; want a PlanChangedError", err)
	}
	if !strings.Contains(err.Error(), "nothing was applied; preview again") || len(changed.Applied) != 0 {
		t.Errorf("message %q, applied %v; want nothing applied", err, changed.Applied)
	}
	*v = values{"one", "one"}
	assertNoChanges(t, tg)

	// Now only second differs from the plan: first (which second waits
	// for) matches, is applied, and the message says so.
	*v = values{"two", "three"}
	_, err = ApplyPlan(ctx, tg, approved, nil)
	if !errors.As(err, &changed) {
		t.Fatalf("ApplyPlan: %v; want a PlanChangedError", err)
	}
	if len(changed.Applied) != 1 || changed.Applied[0].Name != "first" || !strings.Contains(err.Error(), "(update first)") {
		t.Errorf("message %q, applied %+v; want first reported as applied", err, changed.Applied)
	}
	*v = values{"two", "one"}
	assertNoChanges(t, tg)
}

// cancelOnStep returns an OnEvent that records the lock files when step
// "a" first shows up and then cancels the run.
func cancelOnStep(t *testing.T, tg Target, cancel func(), locked *[]string) func(pulumirun.Event) {
	var once sync.Once
	return func(e pulumirun.Event) {
		if e.Step != nil && e.Step.Name == "a" {
			once.Do(func() {
				time.AfterFunc(300*time.Millisecond, func() {
					*locked = pulumiruntest.LockFiles(t, tg.Target)
					cancel()
				})
			})
		}
	}
}

func TestPulumiCancelledPreviewAndApplyLeaveNoLock(t *testing.T) {
	tg := fileTarget(t, "cancel", "dev")
	tg.Program = pulumiruntest.Slow(false)

	ctx, cancel := context.WithCancel(context.Background())
	var locked []string
	start := time.Now()
	_, err := Preview(ctx, tg, pulumirun.PreviewOptions{OnEvent: cancelOnStep(t, tg, cancel, &locked)})
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled preview returned %v; want context.Canceled", err)
	}
	t.Logf("cancelled preview returned after %v; locks while running: %v", took, locked)
	if took > 30*time.Second {
		t.Errorf("cancelling took %v", took)
	}
	if l := pulumiruntest.LockFiles(t, tg.Target); len(l) != 0 {
		t.Errorf("lock left behind: %v", l)
	}

	// An apply that is cancelled mid-way releases its lock too.
	tg.Program = pulumiruntest.Slow(true)
	plan := filepath.Join(t.TempDir(), "plan.json")
	if _, err := Preview(context.Background(), tg, pulumirun.PreviewOptions{PlanPath: plan}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	locked = nil
	_, err = ApplyPlan(ctx, tg, plan, cancelOnStep(t, tg, cancel, &locked))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled apply returned %v; want context.Canceled", err)
	}
	if len(locked) != 1 {
		t.Errorf("locks while the apply ran: %v; want exactly one", locked)
	}
	if l := pulumiruntest.LockFiles(t, tg.Target); len(l) != 0 {
		t.Errorf("lock left behind by the apply: %v", l)
	}

	// The next run is not blocked.
	tg.Program = func(ctx *pulumi.Context) error {
		_, err := pulumi.NewStash(ctx, "a", &pulumi.StashArgs{Input: pulumi.String("a")})
		return err
	}
	plan = filepath.Join(t.TempDir(), "after.json")
	if _, err := Preview(context.Background(), tg, pulumirun.PreviewOptions{PlanPath: plan}); err != nil {
		t.Fatalf("preview after cancel: %v", err)
	}
	if _, err := ApplyPlan(context.Background(), tg, plan, nil); err != nil {
		t.Fatalf("apply after cancel: %v", err)
	}
}

func TestPulumiPreviewDeliversStepsAsTheyArrive(t *testing.T) {
	tg := fileTarget(t, "stream", "dev")
	tg.Program = func(ctx *pulumi.Context) error {
		if _, err := pulumi.NewStash(ctx, "early", &pulumi.StashArgs{Input: pulumi.String("x")}); err != nil {
			return err
		}
		time.Sleep(2 * time.Second)
		_, err := pulumi.NewStash(ctx, "late", &pulumi.StashArgs{Input: pulumi.String("y")})
		return err
	}
	var early time.Time
	_, err := Preview(context.Background(), tg, pulumirun.PreviewOptions{OnEvent: func(e pulumirun.Event) {
		if e.Step != nil && e.Step.Name == "early" && early.IsZero() {
			early = time.Now()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if early.IsZero() || time.Since(early) < 1500*time.Millisecond {
		t.Errorf("the first step arrived %v before the preview ended; want it while the program still ran", time.Since(early))
	}
}

func TestPulumiPreviewOfAMissingStackDirectoryFails(t *testing.T) {
	tg := fileTarget(t, "missing", "dev")
	tg.Dir = t.TempDir() // no Pulumi.yaml
	_, err := Preview(context.Background(), tg, pulumirun.PreviewOptions{})
	if err == nil || strings.Contains(err.Error(), "\nstdout:") {
		t.Fatalf("preview of an empty directory: %v; want a short CLI error", err)
	}
	t.Log(err)
}

// fileTarget is an inline-program target on a fresh file backend.
func fileTarget(t testing.TB, project, stack string) Target {
	return Target{Target: pulumiruntest.FileTarget(t, project, stack)}
}
