// Package pulumiruntest holds what the tests of Pulumi runs share: the real
// CLI, targets on a fresh file backend, and a driftdeck-pulumi helper built
// with inline test programs.
package pulumiruntest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/testkit/testbin"
)

// CLI returns the pulumi binary the real-CLI tests use, or skips (fails
// when DRIFTDECK_REQUIRE_CLUSTER=1) when there is none.
func CLI(t testing.TB) string {
	t.Helper()
	bin, err := pulumirun.FindCLI()
	if err != nil {
		if os.Getenv("DRIFTDECK_REQUIRE_CLUSTER") == "1" {
			t.Fatalf("pulumi CLI required: %v", err)
		}
		t.Skipf("no pulumi CLI (%v): run `make test` to build it", err)
	}
	return bin
}

// FileTarget is a target on a fresh file backend with its own PULUMI_HOME
// and work directory; the caller sets the program.
func FileTarget(t testing.TB, project, stack string) pulumirun.Target {
	t.Helper()
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	return pulumirun.Target{
		Stack:      stack,
		Project:    project,
		BackendURL: "file://" + state,
		Env:        map[string]string{"PULUMI_CONFIG_PASSPHRASE": "test-passphrase"},
		PulumiHome: filepath.Join(dir, "home"),
		WorkDir:    filepath.Join(dir, "work"),
		CLI:        CLI(t),
	}
}

// LockFiles lists the locks the file backend holds on tg's stack.
func LockFiles(t testing.TB, tg pulumirun.Target) []string {
	t.Helper()
	dir := filepath.Join(strings.TrimPrefix(tg.BackendURL, "file://"), ".pulumi", "locks", "organization", tg.Project, tg.Stack)
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".attrs") { // the file driver's metadata
			out = append(out, e.Name())
		}
	}
	return out
}

// Helper builds a driftdeck-pulumi helper holding the inline programs of
// testdata/helper and points pulumirun at it for the rest of the test.
func Helper(t *testing.T) string {
	t.Helper()
	p := testbin.Build(t, "github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest/testdata/helper")
	t.Setenv(pulumirun.HelperEnv, p)
	return p
}

// ReleaseHelper builds the driftdeck-pulumi helper that ships with
// driftdeck (the demo's programs included) and points pulumirun at it for
// the rest of the test.
func ReleaseHelper(t *testing.T) string {
	t.Helper()
	p := testbin.Build(t, "github.com/driftdeck/driftdeck/cmd/driftdeck-pulumi")
	t.Setenv(pulumirun.HelperEnv, p)
	return p
}
