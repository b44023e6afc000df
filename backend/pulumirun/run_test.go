package pulumirun_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
	"github.com/driftdeck/driftdeck/backend/testkit/testbin"
)

// stashes is a target running the test helper's "stashes" program with
// the given values of its config.
func stashes(t *testing.T, first, second string) pulumirun.Target {
	tg := pulumiruntest.FileTarget(t, "stash", "dev")
	tg.Inline = "stashes"
	tg.Config = map[string]pulumirun.ConfigValue{"first": {Value: first}, "second": {Value: second}}
	return tg
}

func byName(steps []pulumirun.Step) map[string]pulumirun.Step {
	out := map[string]pulumirun.Step{}
	for _, s := range steps {
		out[s.Name] = s
	}
	return out
}

func TestHelperPreviewThenApplyPlan(t *testing.T) {
	pulumiruntest.Helper(t)
	tg := stashes(t, "a", "b")
	plan := filepath.Join(t.TempDir(), "plans", "dev.json")
	var streamed []string
	res, err := pulumirun.Preview(context.Background(), tg, pulumirun.PreviewOptions{PlanPath: plan, OnEvent: func(e pulumirun.Event) {
		if e.Step != nil {
			streamed = append(streamed, e.Step.Name)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	steps := byName(res.Steps)
	for _, name := range []string{"first", "second", "secret"} {
		if s := steps[name]; s.Op != pulumirun.OpCreate || s.State != pulumirun.Planned {
			t.Errorf("preview of %s: %s %s; want a planned create", name, s.Op, s.State)
		}
	}
	if d := steps["secret"].Diffs; len(d) != 1 || d[0].New != pulumirun.SecretPlaceholder {
		t.Errorf("the secret's diff crossed the pipe as %+v; want only %s", d, pulumirun.SecretPlaceholder)
	}
	if !strings.Contains(strings.Join(streamed, " "), "first second secret") || res.Summary.Result != "succeeded" {
		t.Errorf("streamed steps %v, summary %+v; want the three Stashes in order and a summary", streamed, res.Summary)
	}

	res, err = pulumirun.ApplyPlan(context.Background(), tg, plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Steps {
		if s.State != pulumirun.Done {
			t.Errorf("apply left %s %s", s.Name, s.State)
		}
	}
	res, err = pulumirun.Preview(context.Background(), tg, pulumirun.PreviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Steps {
		if s.Op != pulumirun.OpSame {
			t.Errorf("after the apply the state differs from the program: %s %s", s.Op, s.Name)
		}
	}
}

func TestHelperApplyRefusesAChangedConfig(t *testing.T) {
	pulumiruntest.Helper(t)
	tg := stashes(t, "a", "b")
	plan := filepath.Join(t.TempDir(), "dev.json")
	if _, err := pulumirun.Preview(context.Background(), tg, pulumirun.PreviewOptions{PlanPath: plan}); err != nil {
		t.Fatal(err)
	}
	tg.Config["first"] = pulumirun.ConfigValue{Value: "changed since the review"}
	_, err := pulumirun.ApplyPlan(context.Background(), tg, plan, nil)
	var changed *pulumirun.PlanChangedError
	if !errors.As(err, &changed) {
		t.Fatalf("apply of a plan whose config changed: %v; want a *PlanChangedError", err)
	}
	if strings.Contains(err.Error(), "changed since the review") {
		t.Errorf("the error shows a config value: %v", err)
	}
	t.Log(err)
}

func TestHelperCancelledApplyLeavesNoLock(t *testing.T) {
	pulumiruntest.Helper(t)
	tg := pulumiruntest.FileTarget(t, "cancel", "dev")
	tg.Inline = "slow"
	plan := filepath.Join(t.TempDir(), "dev.json")
	if _, err := pulumirun.Preview(context.Background(), tg, pulumirun.PreviewOptions{PlanPath: plan}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	var locked []string
	start := time.Now()
	_, err := pulumirun.ApplyPlan(ctx, tg, plan, func(e pulumirun.Event) {
		if e.Step != nil && e.Step.Name == "a" {
			once.Do(func() {
				time.AfterFunc(300*time.Millisecond, func() {
					locked = pulumiruntest.LockFiles(t, tg)
					cancel()
				})
			})
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled apply returned %v; want context.Canceled", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("cancelling took %v", took)
	}
	if len(locked) != 1 {
		t.Errorf("locks while the apply ran: %v; want exactly one", locked)
	}
	if l := pulumiruntest.LockFiles(t, tg); len(l) != 0 {
		t.Errorf("lock left behind: %v", l)
	}
}

func TestHelperRefusesAMissingProgram(t *testing.T) {
	t.Setenv(pulumirun.HelperEnv, testbin.Build(t, "github.com/driftdeck/driftdeck/cmd/driftdeck-pulumi"))
	tg := pulumiruntest.FileTarget(t, "missing", "dev")
	tg.Dir = t.TempDir() // no Pulumi.yaml
	_, err := pulumirun.Preview(context.Background(), tg, pulumirun.PreviewOptions{})
	if err == nil || strings.Contains(err.Error(), "\nstdout:") {
		t.Fatalf("preview of an empty directory: %v; want a short CLI error", err)
	}
	t.Log(err)

	// The release helper holds no inline programs.
	tg.Dir, tg.Inline = "", "stashes"
	if _, err := pulumirun.Preview(context.Background(), tg, pulumirun.PreviewOptions{}); err == nil || !strings.Contains(err.Error(), `no inline program "stashes"`) {
		t.Errorf("inline program in the release helper: %v", err)
	}
}

func TestRunWithoutTheHelperSaysHowToInstallIt(t *testing.T) {
	t.Setenv(pulumirun.HelperEnv, "")
	t.Setenv("PATH", t.TempDir())
	tg := pulumirun.Target{Stack: "dev", Dir: t.TempDir()}
	_, err := pulumirun.Preview(context.Background(), tg, pulumirun.PreviewOptions{})
	if err == nil || !strings.Contains(err.Error(), "go install github.com/driftdeck/driftdeck/cmd/driftdeck-pulumi") {
		t.Fatalf("preview without the helper: %v; want how to install it", err)
	}
	t.Setenv(pulumirun.HelperEnv, filepath.Join(t.TempDir(), "missing"))
	if _, err := pulumirun.Preview(context.Background(), tg, pulumirun.PreviewOptions{}); err == nil || !strings.Contains(err.Error(), pulumirun.HelperEnv) {
		t.Errorf("%s naming a missing file: %v", pulumirun.HelperEnv, err)
	}
}

func TestHelperThatDiesIsReportedWithItsMessage(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "driftdeck-pulumi")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'cannot start: out of luck' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(pulumirun.HelperEnv, fake)
	_, err := pulumirun.Preview(context.Background(), pulumirun.Target{Stack: "dev", Dir: t.TempDir()}, pulumirun.PreviewOptions{})
	if err == nil || !strings.Contains(err.Error(), "out of luck") {
		t.Fatalf("a helper that exits at once: %v; want its message", err)
	}
}
