package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
)

func checkoutFile(t *testing.T, c repoCache, repoURL, revision, file string) (string, string) {
	t.Helper()
	dest := t.TempDir()
	commit, err := c.checkout(context.Background(), repoURL, revision, dest)
	if err != nil {
		t.Fatalf("checkout %q: %v", revision, err)
	}
	data, err := os.ReadFile(filepath.Join(dest, file))
	if err != nil {
		t.Fatalf("checkout %q: %v", revision, err)
	}
	return commit, string(data)
}

func TestRepoCacheResolvesRevisionsLikeArgoCD(t *testing.T) {
	src := localrendertest.NewRepo(t)
	src.Write(map[string]string{"app/cm.yaml": "v1\n"})
	first := src.Commit("first")
	src.Tag("v1.0.0", first)
	src.Write(map[string]string{"app/cm.yaml": "v2\n"})
	second := src.Commit("second")

	cache := repoCache{dir: t.TempDir()}
	for _, c := range []struct{ revision, commit, content string }{
		{"", second, "v2\n"},
		{"HEAD", second, "v2\n"},
		{"main", second, "v2\n"},
		{"refs/heads/main", second, "v2\n"},
		{"v1.0.0", first, "v1\n"},
		{first, first, "v1\n"},
		{first[:10], first, "v1\n"},
	} {
		commit, content := checkoutFile(t, cache, src.Dir, c.revision, "app/cm.yaml")
		if commit != c.commit || content != c.content {
			t.Errorf("revision %q gave commit %s with %q, want %s with %q", c.revision, commit, content, c.commit, c.content)
		}
	}

	// A new commit on the branch is fetched on the next ask.
	src.Write(map[string]string{"app/cm.yaml": "v3\n"})
	third := src.Commit("third")
	if commit, content := checkoutFile(t, cache, src.Dir, "main", "app/cm.yaml"); commit != third || content != "v3\n" {
		t.Errorf("after a new commit, main gave %s with %q", commit, content)
	}

	// A commit already fetched needs no remote: the cached clone serves it.
	if err := os.RemoveAll(src.Dir); err != nil {
		t.Fatal(err)
	}
	if commit, content := checkoutFile(t, cache, src.Dir, second, "app/cm.yaml"); commit != second || content != "v2\n" {
		t.Errorf("cached commit gave %s with %q", commit, content)
	}
	if _, err := cache.checkout(context.Background(), src.Dir, "main", t.TempDir()); err == nil {
		t.Error("a branch resolved although the repository is gone")
	}
}

func TestRepoCacheUnknownRevision(t *testing.T) {
	src := localrendertest.NewRepo(t)
	src.Write(map[string]string{"a.yaml": "x: 1\n"})
	src.Commit("only")
	_, err := repoCache{dir: t.TempDir()}.checkout(context.Background(), "file://"+src.Dir, "no-such-branch", t.TempDir())
	if err == nil {
		t.Fatal("an unknown branch resolved")
	}
}
