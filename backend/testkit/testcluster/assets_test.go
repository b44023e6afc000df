package testcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExplicitAssetsWithoutBinariesIsAnError(t *testing.T) {
	t.Setenv(EnvAssets, t.TempDir())
	_, err := findAssets()
	if err == nil || errors.Is(err, errNotBuilt) {
		t.Fatalf("KUBEBUILDER_ASSETS naming an empty directory: got %v, want an error (not a skip)", err)
	}
	for _, want := range []string{EnvAssets + "=", "kube-apiserver", "etcd"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestExplicitAssetsWithBinariesIsUsed(t *testing.T) {
	dir := t.TempDir()
	for _, b := range binaries {
		if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(EnvAssets, dir)
	got, err := findAssets()
	if err != nil || got != dir {
		t.Fatalf("findAssets() = %q, %v; want %q", got, err, dir)
	}
}

func TestEmptyToolCacheMeansNotBuilt(t *testing.T) {
	t.Setenv(EnvAssets, "")
	t.Setenv("DRIFTDECK_TOOLS_CACHE", t.TempDir())
	_, err := findAssets()
	if !errors.Is(err, errNotBuilt) {
		t.Fatalf("with an empty tool cache: got %v, want the not-built error", err)
	}
	if !strings.Contains(err.Error(), "make test") {
		t.Errorf("the skip message %q does not say to run make test", err)
	}
}

// recorder is a testing.TB that records how a helper ended the test.
type recorder struct {
	testing.TB
	name           string
	skipped, fatal string
}

type stopped struct{}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Skip(args ...any) {
	r.skipped = fmt.Sprint(args...)
	panic(stopped{})
}
func (r *recorder) Fatal(args ...any) {
	r.fatal = fmt.Sprint(args...)
	panic(stopped{})
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	panic(stopped{})
}

func (r *recorder) run(f func(testing.TB)) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stopped); !ok {
				panic(p)
			}
		}
	}()
	f(r)
}

func TestMissingBinariesSkipUnlessRequired(t *testing.T) {
	t.Setenv(EnvRequire, "")
	r := &recorder{name: "TestClusterX"}
	r.run(func(tb testing.TB) { skipOrFail(tb, errNotBuilt) })
	if r.skipped == "" || r.fatal != "" || !strings.Contains(r.skipped, "make test") {
		t.Errorf("not required: skipped %q, failed %q; want a skip naming make test", r.skipped, r.fatal)
	}

	t.Setenv(EnvRequire, "1")
	r = &recorder{name: "TestClusterX"}
	r.run(func(tb testing.TB) { skipOrFail(tb, errNotBuilt) })
	if r.fatal == "" || r.skipped != "" || !strings.Contains(r.fatal, EnvRequire) {
		t.Errorf("required: skipped %q, failed %q; want a failure naming %s", r.skipped, r.fatal, EnvRequire)
	}
}

func TestOtherStartErrorsFail(t *testing.T) {
	t.Setenv(EnvRequire, "")
	r := &recorder{name: "TestClusterX"}
	r.run(func(tb testing.TB) { skipOrFail(tb, errors.New("etcd exited")) })
	if r.fatal == "" || r.skipped != "" {
		t.Errorf("skipped %q, failed %q; want a failure", r.skipped, r.fatal)
	}
}

func TestRealClusterTestsMustBeNamedTestCluster(t *testing.T) {
	for name, wantFail := range map[string]bool{
		"TestPause":              true,
		"TestPause/sub":          true,
		"TestClusterPause":       false,
		"TestClusterPause/v2.14": false,
		"BenchmarkStartup":       false,
	} {
		r := &recorder{name: name}
		r.run(func(tb testing.TB) { checkName(tb) })
		if failed := r.fatal != ""; failed != wantFail {
			t.Errorf("checkName(%q) failed=%v (%s)", name, failed, r.fatal)
		}
	}
}

func TestRepoRootHoldsTheModule(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "testdata", "tools", "build.sh")); err != nil {
		t.Errorf("repository root %s: %v", root, err)
	}
	if !filepath.IsAbs(root) {
		t.Errorf("repository root %q is not absolute", root)
	}
}
