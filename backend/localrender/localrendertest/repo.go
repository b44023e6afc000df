package localrendertest

import (
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v6"
	"github.com/go-git/go-git/v6/plumbing"
	"github.com/go-git/go-git/v6/plumbing/object"
)

// Repo is a real git repository on disk, written with go-git, that tests
// commit manifests to and Applications point at (as a plain path, Dir).
type Repo struct {
	t    testing.TB
	Dir  string
	repo *git.Repository
}

// NewRepo makes an empty repository on branch main, removed with the test.
func NewRepo(t testing.TB) *Repo {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false, git.WithDefaultBranch(plumbing.NewBranchReferenceName("main")))
	if err != nil {
		t.Fatal(err)
	}
	return &Repo{t: t, Dir: dir, repo: repo}
}

// Write sets files (path -> content); an empty content deletes the file.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for name, content := range files {
		path := filepath.Join(r.Dir, filepath.FromSlash(name))
		if content == "" {
			if err := os.Remove(path); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Commit stages everything and commits; it returns the commit's hash.
func (r *Repo) Commit(msg string) string {
	r.t.Helper()
	wt, err := r.repo.Worktree()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		r.t.Fatal(err)
	}
	h, err := wt.Commit(msg, &git.CommitOptions{
		All:    true,
		Author: &object.Signature{Name: "Test", Email: "test@example.com", When: time.Now()},
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return h.String()
}

// Tag points a lightweight tag at a commit.
func (r *Repo) Tag(name, hash string) {
	r.t.Helper()
	if _, err := r.repo.CreateTag(name, plumbing.NewHash(hash), nil); err != nil {
		r.t.Fatal(err)
	}
}

// ServeHTTP serves the repository read-only over HTTP through git
// http-backend, for what accepts only http, https and ssh URLs (a Flux
// GitRepository); it returns the clone URL. It skips the test without git.
func (r *Repo) ServeHTTP() string {
	r.t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		r.t.Skip("git is not installed: git http-backend serves the test repository")
	}
	srv := httptest.NewServer(&cgi.Handler{
		Path: gitBin, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(r.Dir), "GIT_HTTP_EXPORT_ALL=1"},
	})
	r.t.Cleanup(srv.Close)
	return srv.URL + "/" + filepath.Base(r.Dir) + "/.git"
}
