package pulumistate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
)

// A checkpoint's sidecar torn as a pulumi CLI killed mid-save tears it
// (empty): the real CLI then fails on the stack with "EOF", driftdeck
// reads the stack and names the sidecar, and once driftdeck's repair has
// removed it the CLI runs the stack again.
func TestPulumiReadsATornSidecarAsEOFUntilItIsRemoved(t *testing.T) {
	bin := pulumiruntest.CLI(t)
	state := t.TempDir()
	ctx := context.Background()
	program := func(ctx *pulumi.Context) error {
		_, err := pulumi.NewStash(ctx, "kept", &pulumi.StashArgs{Input: pulumi.String("x")})
		return err
	}
	stack, err := auto.UpsertStackInlineSource(ctx, "dev", "torn", program,
		auto.Project(workspace.Project{Name: tokens.PackageName("torn"), Runtime: workspace.NewProjectRuntimeInfo("go", nil)}),
		auto.WorkDir(t.TempDir()), auto.PulumiHome(filepath.Join(t.TempDir(), "home")),
		auto.Pulumi(automation(t, bin)),
		auto.EnvVars(map[string]string{
			"PULUMI_BACKEND_URL":       "file://" + state,
			"PULUMI_CONFIG_PASSPHRASE": "test",
			"PULUMI_SKIP_UPDATE_CHECK": "true",
		}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stack.Up(ctx); err != nil {
		t.Fatal(err)
	}
	key := ".pulumi/stacks/torn/dev.json"
	sidecar := filepath.Join(state, filepath.FromSlash(key)) + ".attrs"
	if _, err := os.Stat(sidecar); err != nil {
		t.Fatalf("the CLI wrote no sidecar beside its checkpoint: %v", err)
	}
	if err := os.WriteFile(sidecar, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := stack.Preview(ctx); err == nil || !strings.Contains(err.Error(), "EOF") {
		t.Fatalf("with its checkpoint's sidecar torn the CLI says %v; want EOF", err)
	}

	be, err := Open(ctx, "file://"+state)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	ref := StackRef{Org: "organization", Project: "torn", Stack: "dev"}
	info, err := be.Stack(ctx, ref)
	if err != nil || len(info.Torn) != 1 || info.Torn[0] != key || info.Resources < 2 {
		t.Fatalf("driftdeck reads %+v, %v; want the stack's resources and %s torn", info, err, key)
	}
	r, err := be.RemoveTorn(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 1 || !strings.HasPrefix(r.Changes[0], "delete "+sidecar+": ") {
		t.Errorf("plan = %q; want the sidecar's removal", r.Changes)
	}
	if err := r.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := stack.Preview(ctx); err != nil {
		t.Fatalf("after the repair the CLI still fails: %v", err)
	}
}
