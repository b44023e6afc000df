package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The repositories the demo embeds are what this generator writes: the same
// commits (so sources_commits.go names them) and every object they need.
// After a change to web.go, `go generate ./backend/demo` makes them agree.
func TestTheEmbeddedRepositoriesAreTheGeneratedOnes(t *testing.T) {
	dir := t.TempDir()
	commits, err := write(dir)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../../sources_commits.go")
	if err != nil {
		t.Fatal(err)
	}
	for name, hash := range commits {
		if !strings.Contains(string(src), name) || !strings.Contains(string(src), hash) {
			t.Errorf("sources_commits.go does not name %s = %s: run go generate ./backend/demo", name, hash)
		}
	}
	for _, r := range repositories {
		err := filepath.Walk(filepath.Join(dir, r.dir), func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || !strings.Contains(p, string(filepath.Separator)+"objects"+string(filepath.Separator)) {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			if _, err := os.Stat(filepath.Join("../../sources", rel)); err != nil {
				t.Errorf("the embedded %s lacks object %s: run go generate ./backend/demo", r.dir, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(dir, r.dir, "refs", "heads", "main"))
		got, _ := os.ReadFile(filepath.Join("../../sources", r.dir, "refs", "heads", "main"))
		if string(got) != string(want) {
			t.Errorf("the embedded %s's main is %q, the generator's %q", r.dir, got, want)
		}
	}
}
