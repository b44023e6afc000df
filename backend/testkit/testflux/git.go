package testflux

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ServeGit serves the repository in dir (a working tree) over HTTP with
// `git http-backend`, until the test ends, and returns its URL.
func ServeGit(t testing.TB, dir string) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	backend := &cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Join(dir, ".git"), "GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_GLOBAL=/dev/null"},
	}
	srv := httptest.NewServer(http.StripPrefix("/repo.git", backend))
	t.Cleanup(srv.Close)
	return srv.URL + "/repo.git"
}

// Revision is how Flux names a commit of a branch: "main@sha1:<commit>".
func Revision(branch, commit string) string {
	return branch + "@sha1:" + strings.TrimSpace(commit)
}
