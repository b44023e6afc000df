package helperbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkout writes a module named like driftdeck's with one tiny helper,
// which this process has not built yet.
func checkout(t *testing.T) string {
	t.Helper()
	builds.Delete("tiny")
	t.Cleanup(func() { builds.Delete("tiny") })
	root := t.TempDir()
	files := map[string]string{
		"go.mod":              "module " + modulePath + "\n\ngo 1.26\n",
		"cmd/tiny/main.go":    "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Print(\"tiny helper\") }\n",
		"sub/dir/placeholder": "",
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestAHelperIsBuiltFromTheCheckoutWhenDriftdeckRunsThroughGoRun(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	root, cache := checkout(t), t.TempDir()
	h := Helper{Name: "tiny"}
	goRun := filepath.Join(os.TempDir(), "go-build123", "b001", "exe", "driftdeck")
	path, ok, err := h.fromCheckout(goRun, filepath.Join(root, "sub", "dir"), cache)
	if !ok || err != nil {
		t.Fatalf("fromCheckout: ok %v, err %v", ok, err)
	}
	out, err := exec.Command(path).Output()
	if err != nil || string(out) != "tiny helper" {
		t.Fatalf("the built helper ran as %q, %v", out, err)
	}
	if matches, _ := filepath.Glob(filepath.Join(cache, "driftdeck", "helpers", "*.partial-*")); len(matches) != 0 {
		t.Errorf("a partial build was left behind: %v", matches)
	}
}

// From Go 1.24 on, a second `go run` of the same code runs the executable
// the first one left in the build cache: that is a driftdeck run from its
// checkout too.
func TestAGoRunFromTheBuildCacheBuildsHelpersToo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	gocache := strings.TrimSpace(string(out))
	cached := filepath.Join(gocache, "65", "656747b67c5a4c57-d", "driftdeck")
	if !builtByGoRun(cached) {
		t.Fatalf("%s: not taken for a go run", cached)
	}
	for _, self := range []string{filepath.Join(gocache, "65", "656747b67c5a4c57-a"), "/usr/local/bin/driftdeck", "/opt/x-d/driftdeck"} {
		if builtByGoRun(self) {
			t.Errorf("%s: taken for a go run", self)
		}
	}
	root, cache := checkout(t), t.TempDir()
	path, ok, err := (Helper{Name: "tiny"}).fromCheckout(cached, root, cache)
	if !ok || err != nil {
		t.Fatalf("fromCheckout of a cached go run: ok %v, err %v", ok, err)
	}
	if out, err := exec.Command(path).Output(); err != nil || string(out) != "tiny helper" {
		t.Fatalf("the helper ran as %q, %v", out, err)
	}
}

func TestAnInstalledDriftdeckNeverBuildsHelpers(t *testing.T) {
	root, cache := checkout(t), t.TempDir()
	if _, ok, _ := (Helper{Name: "tiny"}).fromCheckout("/usr/local/bin/driftdeck", root, cache); ok {
		t.Fatal("an installed driftdeck must not build from a checkout it happens to run in")
	}
	if _, ok, _ := (Helper{Name: "tiny"}).fromCheckout("/tmp/go-build1/b001/driftdeck.test", root, cache); ok {
		t.Fatal("a test binary must not build helpers: its tests decide which helper it finds")
	}
	if _, ok, _ := (Helper{Name: "tiny"}).fromCheckout("/tmp/go-build1/exe/driftdeck", t.TempDir(), cache); ok {
		t.Fatal("outside a driftdeck checkout nothing can be built")
	}
	if _, ok, _ := (Helper{Name: "missing"}).fromCheckout("/tmp/go-build1/exe/driftdeck", root, cache); ok {
		t.Fatal("a helper the checkout does not hold cannot be built")
	}
}
