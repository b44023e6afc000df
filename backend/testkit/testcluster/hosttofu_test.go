package testcluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A tofu or terraform on the machine's PATH is not found by the tests'
// processes; every other command of its directory still is, and a
// directory without either is left as it was.
func TestTheMachinesTofuIsOffTheTestsPath(t *testing.T) {
	withTofu, plain := t.TempDir(), t.TempDir()
	for _, f := range []string{filepath.Join(withTofu, "terraform"), filepath.Join(withTofu, "tofu"),
		filepath.Join(withTofu, "psql"), filepath.Join(plain, "git")} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", withTofu+string(os.PathListSeparator)+plain)

	links, err := hideHostTofu()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(links) })
	for _, name := range hostTofuNames {
		if p, err := exec.LookPath(name); err == nil {
			t.Errorf("%s is still found, at %s (PATH %s)", name, p, os.Getenv("PATH"))
		}
	}
	for _, name := range []string{"psql", "git"} {
		if _, err := exec.LookPath(name); err != nil {
			t.Errorf("%s is no longer found: %v (PATH %s)", name, err, os.Getenv("PATH"))
		}
	}
	if dirs := filepath.SplitList(os.Getenv("PATH")); len(dirs) != 2 || dirs[1] != plain {
		t.Errorf("PATH %v: want a directory of links, then %s", dirs, plain)
	}
}

// A PATH with neither is not touched.
func TestAPathWithoutTofuIsLeftAsItWas(t *testing.T) {
	plain := t.TempDir()
	t.Setenv("PATH", plain)
	links, err := hideHostTofu()
	if err != nil || links != "" || os.Getenv("PATH") != plain {
		t.Errorf("hideHostTofu() = %q, %v; PATH %q, want it unchanged (%q)", links, err, os.Getenv("PATH"), plain)
	}
}
