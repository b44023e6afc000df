package testargocd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a local git repository: Argo CD reads it as file://, Flux over
// HTTP (testflux.ServeGit).
type Repo struct {
	t   testing.TB
	dir string
}

// NewRepo makes an empty repository on branch main, removed when the test ends.
func NewRepo(t testing.TB) *Repo {
	t.Helper()
	r := &Repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

// Dir is the repository's working tree; its .git is the repository.
func (r *Repo) Dir() string { return r.dir }

// URL is the repoURL an Application names.
func (r *Repo) URL() string { return "file://" + r.dir }

// Commit writes files (path -> content) and commits them; returns the commit.
func (r *Repo) Commit(message string, files map[string]string) string {
	r.t.Helper()
	for path, content := range files {
		full := filepath.Join(r.dir, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", message)
	return strings.TrimSpace(r.git("rev-parse", "HEAD"))
}

func (r *Repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ConfigMap is a manifest of one ConfigMap with one key, for sources.
func ConfigMap(name, value string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  value: %q\n", name, value)
}

// Remove deletes files and commits that; returns the commit.
func (r *Repo) Remove(message string, paths ...string) string {
	r.t.Helper()
	r.git(append([]string{"rm", "-q", "--"}, paths...)...)
	r.git("commit", "-q", "-m", message)
	return r.Head()
}

// Head is the commit the branch points at.
func (r *Repo) Head() string {
	r.t.Helper()
	return strings.TrimSpace(r.git("rev-parse", "HEAD"))
}
