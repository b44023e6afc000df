package pulumirun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v6"
	"github.com/go-git/go-git/v6/plumbing/object"

	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
)

// programRepo makes a repository with two commits of infra/Pulumi.yaml and
// returns its path and both commit hashes.
func programRepo(t *testing.T) (string, string, string) {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	commit := func(desc string) string {
		if err := os.MkdirAll(filepath.Join(dir, "infra"), 0o755); err != nil {
			t.Fatal(err)
		}
		body := "name: app\nruntime: yaml\ndescription: " + desc + "\n"
		if err := os.WriteFile(filepath.Join(dir, "infra", "Pulumi.yaml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add("infra/Pulumi.yaml"); err != nil {
			t.Fatal(err)
		}
		h, err := wt.Commit(desc, &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}})
		if err != nil {
			t.Fatal(err)
		}
		return h.String()
	}
	return dir, commit("first"), commit("second")
}

func description(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "Pulumi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, desc, _ := strings.Cut(string(b), "description: ")
	return strings.TrimSpace(desc)
}

func TestCheckout(t *testing.T) {
	localrendertest.Use(t)
	repo, first, _ := programRepo(t)
	ctx := context.Background()

	dir, cleanup, err := Checkout(ctx, Source{Repo: repo, Commit: first, Dir: "infra"})
	if err != nil {
		t.Fatal(err)
	}
	if got := description(t, dir); got != "first" {
		t.Errorf("pinned commit checked out %q; want the first commit", got)
	}
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cleanup left %s", dir)
	}

	dir, cleanup, err = Checkout(ctx, Source{Repo: "file://" + repo, Dir: "infra"})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if got := description(t, dir); got != "second" {
		t.Errorf("branch head checked out %q; want the second commit", got)
	}
}

func TestCheckoutRefuses(t *testing.T) {
	localrendertest.Use(t)
	repo, first, _ := programRepo(t)
	for name, src := range map[string]Source{
		"abbreviated commit": {Repo: repo, Commit: first[:12], Dir: "infra"},
		"escaping repoDir":   {Repo: repo, Dir: "../.."},
		"no project":         {Repo: repo, Dir: ""},
		"unknown commit":     {Repo: repo, Commit: strings.Repeat("a", 40), Dir: "infra"},
	} {
		if _, _, err := Checkout(context.Background(), src); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}
