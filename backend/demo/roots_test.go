package demo

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testproc"
)

// The workbench's long apply of the demo's peering module holds its state
// lock while the workbench runs, and lets it go when it ends.
func TestDemoLongApplyHoldsTheLockUntilTheWorkbenchEnds(t *testing.T) {
	bin := testcluster.Tool(t, "DRIFTDECK_TOFU", "opentofu")
	t.Setenv("TF_CLI_CONFIG_FILE", filepath.Join(t.TempDir(), "none.tfrc"))
	tofu, err := rootmod.New(bin, filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	roots, err := Roots(context.Background(), state, tofu)
	if err != nil {
		t.Fatal(err)
	}
	peering := roots[len(roots)-1]
	ctx, cancel := context.WithCancel(context.Background())
	held := make(chan struct{})
	if err := HoldLock(ctx, state, tofu, func() { close(held) }); err != nil {
		t.Fatal(err)
	}
	<-held
	u := tofu.Read(context.Background(), peering)
	if l := u.Root.Lock; l == nil || l.Operation != "OperationTypeApply" || u.Key.Name != "peering" {
		t.Fatalf("the long apply's lock: %+v of %s", l, u.Key)
	}
	cancel()
	testcluster.Eventually(t, 30*time.Second, "the lock let go", func() bool {
		l, _, err := tofu.ReadLock(context.Background(), peering)
		return err == nil && l == nil
	})
	// Nothing the apply started outlives it (its provisioner's sleep).
	WaitBackground()
	testproc.NoneLeftUnder(t, peering.Dir, 10*time.Second)
}
