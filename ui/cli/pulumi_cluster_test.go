package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// lockedStack creates a Stack whose file:// state backend holds a dead run's
// lock: a copy of the demo's backend. It returns the Stack's unit name and
// the lock file.
func lockedStack(t *testing.T, dyn dynamic.Interface, ns string) (unit, lock string) {
	t.Helper()
	silenceKlog() // before the demo's informers start logging, as Main does
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := demo.Start(ctx, demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := d.Dynamic.Resource(pulumiop.Stacks).Namespace("infra").Get(ctx, "network-prod", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	from, _, _ := unstructured.NestedString(src.Object, "spec", "backend")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(strings.TrimPrefix(from, "file://"))); err != nil {
		t.Fatal(err)
	}
	locks, _ := filepath.Glob(filepath.Join(dir, ".pulumi", "locks", "organization", "*", "*", "*.json"))
	if len(locks) != 1 {
		t.Fatalf("the demo's backend holds %d locks, want 1", len(locks))
	}
	spec, _, _ := unstructured.NestedMap(src.Object, "spec")
	spec["backend"] = "file://" + dir
	st := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "pulumi.com/v1", "kind": "Stack",
		"metadata": map[string]any{"name": "network", "namespace": ns}, "spec": spec}}
	if _, err := dyn.Resource(pulumiop.Stacks).Namespace(ns).Create(context.Background(), st, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return "pulumi/" + ns + "/network", locks[0]
}

func TestClusterDryRunUnlockWritesNothingAndSaysWhatItWould(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	unit, lock := lockedStack(t, dyn, ns)
	kc := testcluster.Kubeconfig(t, c.Config(), "test")

	code, out, stderr := run(t, "--dry-run", "unlock", unit, "--reason", "runner died", "--yes", "--kubeconfig", kc)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "DRY RUN") || !strings.Contains(out, "delete .pulumi/locks/") || strings.Contains(out, "done:") {
		t.Errorf("a dry run should say, labelled DRY RUN, what it would delete:\n%s", out)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("the dry run removed the lock: %v", err)
	}
	code, out, stderr = run(t, "unlock", unit, "--reason", "runner died", "--yes", "--kubeconfig", kc)
	if code != 0 || strings.Contains(out, "DRY RUN") || !strings.Contains(out, "done: unstuck") {
		t.Fatalf("the real unlock: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("after the real unlock the lock is still there: %v", err)
	}
}
