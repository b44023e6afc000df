package rootmod

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/localrender"
	"github.com/driftdeck/driftdeck/backend/testkit/testbin"
	"github.com/driftdeck/driftdeck/backend/testkit/testtofu"
)

// gitRepo is a repository with a root module in infra/network, committed.
func gitRepo(t *testing.T, config string) (repo string, commit func(config string)) {
	t.Helper()
	repo = t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	commit = func(config string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(repo, "infra", "network"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, "infra", "network", "main.tf"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("commit", "-q", "-m", "change")
	}
	git("init", "-q", "-b", "main")
	commit(config)
	return repo, commit
}

// A root module from a Git repository and branch: driftdeck reads it from
// its own checkout, and each plan checks out the branch's newest commit.
func TestTofuRootModuleFromGitIsPlannedAtTheBranchsNewestCommit(t *testing.T) {
	t.Setenv(localrender.HelperEnv, testbin.Build(t, "github.com/driftdeck/driftdeck/cmd/driftdeck-render"))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	statePath := filepath.Join(t.TempDir(), "network.tfstate")
	backend := `terraform {
  backend "local" { path = "` + statePath + `" }
}
`
	repo, commit := gitRepo(t, backend+`resource "terraform_data" "vpc" { input = "10.0.0.0/16" }`+"\n")
	roots, err := FromConfig([]config.RootModule{{Git: &config.RootGit{URL: repo, Ref: "main", Dir: "infra/network"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := roots[0]
	if r.Key().Ref() != "root/default/network" {
		t.Fatalf("a root from Git is named after its directory: %s", r.Key().Ref())
	}
	m := newModule(t, testtofu.Sleepy) // for its tofu and cache
	ctx := ctxOf(t)
	if u := m.tofu.Read(ctx, r); u.Root.ReadError != "" || u.Root.Serial != 0 {
		t.Fatalf("a module never applied, from its checkout: %+v", u.Root)
	}
	saved, err := m.tofu.Plan(ctx, r, "alice", 0, noOpts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.tofu.Apply(ctx, r, saved.ID, 0); err != nil {
		t.Fatal(err)
	}
	commit(backend + `resource "terraform_data" "vpc" { input = "10.0.0.0/16" }
resource "terraform_data" "subnet" { input = "10.0.1.0/24" }
`)
	saved, err = m.tofu.Plan(ctx, r, "alice", 0, noOpts)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Summary != "Plan: 1 to add, 0 to change, 0 to destroy." {
		t.Errorf("the plan after a new commit: %q", saved.Summary)
	}
}
