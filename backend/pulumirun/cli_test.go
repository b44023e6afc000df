package pulumirun

import (
	"os"
	"path/filepath"
	"testing"
)

// testCLI returns the pulumi binary the real-CLI tests use, or skips (fails
// when DRIFTDECK_REQUIRE_CLUSTER=1) when there is none.
func testCLI(t testing.TB) string {
	t.Helper()
	bin, err := FindCLI()
	if err != nil {
		if os.Getenv("DRIFTDECK_REQUIRE_CLUSTER") == "1" {
			t.Fatalf("pulumi CLI required: %v", err)
		}
		t.Skipf("no pulumi CLI (%v): run `make test` to build it", err)
	}
	return bin
}

// fileTarget is an inline-program target on a fresh file backend with its
// own PULUMI_HOME.
func fileTarget(t testing.TB, project, stack string) Target {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	return Target{
		Stack:      stack,
		Project:    project,
		BackendURL: "file://" + state,
		Env:        map[string]string{"PULUMI_CONFIG_PASSPHRASE": "test-passphrase"},
		PulumiHome: filepath.Join(dir, "home"),
		WorkDir:    filepath.Join(dir, "work"),
		CLI:        testCLI(t),
	}
}

func TestFindCLIPrefersTheEnvironment(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "pulumi")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(CLIEnv, bin)
	got, err := FindCLI()
	if err != nil || got != bin {
		t.Fatalf("FindCLI() = %q, %v; want %q", got, err, bin)
	}
	t.Setenv(CLIEnv, filepath.Join(t.TempDir(), "missing"))
	if _, err := FindCLI(); err == nil {
		t.Fatal("FindCLI accepted a missing binary named by " + CLIEnv)
	}
}
