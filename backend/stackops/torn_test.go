package stackops

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gocloud.dev/blob"
)

// A pulumi CLI killed while saving leaves an object's file:// sidecar
// (<object>.attrs) empty, and from then on gocloud, hence the pulumi CLI,
// reads that object as "EOF". driftdeck still reads the stack, names the
// torn sidecars, and its unlock removes them first, after which gocloud
// reads every object again.
func TestUnstickRemovesTheSidecarsAKilledWriterTore(t *testing.T) {
	ops, c, _ := demoOps(t)
	ctx := context.Background()
	k := networkProd(c)
	_, loc, err := ops.State(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimPrefix(strings.SplitN(loc.Backend, "?", 2)[0], "file://")
	var tornKeys []string
	for _, sub := range []string{"stacks/network", "locks/organization/network"} {
		err := filepath.WalkDir(filepath.Join(dir, ".pulumi", filepath.FromSlash(sub)), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".json") {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			tornKeys = append(tornKeys, filepath.ToSlash(rel))
			return os.WriteFile(p+".attrs", nil, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(tornKeys) != 2 {
		t.Fatalf("want the checkpoint and the lock torn, tore %q", tornKeys)
	}
	raw, err := blob.OpenBucket(ctx, "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ReadAll(ctx, tornKeys[0]); !errors.Is(err, io.EOF) {
		t.Fatalf("gocloud reads %s past its torn sidecar (%v): the premise no longer holds", tornKeys[0], err)
	}

	info, _, err := ops.State(ctx, k)
	if err != nil {
		t.Fatalf("the stack cannot be read past torn sidecars: %v", err)
	}
	if !slices.Equal(info.Torn, []string{tornKeys[1], tornKeys[0]}) && !slices.Equal(info.Torn, tornKeys) {
		t.Errorf("torn = %q; want %q", info.Torn, tornKeys)
	}
	if len(info.Locks) != 1 || len(info.Pending) != 1 {
		t.Errorf("past torn sidecars the stack shows %+v; want its lock and pending operation", info)
	}

	plan, err := ops.PlanUnstick(ctx, k, false, false)
	if err != nil {
		t.Fatal(err)
	}
	changes := plan.Changes()
	t.Logf("plan:\n%s", strings.Join(changes, "\n"))
	if !strings.HasPrefix(changes[0], "remove 2 torn sidecar file(s)") ||
		!strings.Contains(strings.Join(changes, "\n"), filepath.Join(dir, filepath.FromSlash(tornKeys[0]))+".attrs") {
		t.Fatalf("the plan must first remove the torn sidecars, each named:\n%s", strings.Join(changes, "\n"))
	}
	if _, err := ops.Apply(ctx, plan, "INC-12: the CLI was killed mid-save"); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ReadAll(ctx, tornKeys[0]); err != nil {
		t.Errorf("after the unlock gocloud still cannot read %s: %v", tornKeys[0], err)
	}
	after, _, err := ops.State(ctx, k)
	if err != nil || len(after.Torn) != 0 || len(after.Locks) != 0 {
		t.Errorf("after the unlock: %+v, %v", after, err)
	}
}
