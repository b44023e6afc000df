package pulumirun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	git "github.com/go-git/go-git/v6"
	"github.com/go-git/go-git/v6/plumbing"
	"github.com/go-git/go-git/v6/plumbing/client"
	"github.com/go-git/go-git/v6/plumbing/transport/http"
)

// Source is where an operator Stack's program lives (spec.projectRepo,
// spec.commit or spec.branch, spec.repoDir).
type Source struct {
	Repo   string // URL or local path
	Commit string // full 40-hex commit; wins over Branch
	Branch string // "main" or "refs/heads/main"; "" is the remote's HEAD
	Dir    string // the program's directory inside the repository
	Token  string // HTTPS token for private repositories (never logged)
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Checkout clones src into a new temporary directory and returns the
// program directory inside it and a function that removes the clone.
// Like the operator, it takes only a full commit SHA: an abbreviated one
// would be read as a ref name.
func Checkout(ctx context.Context, src Source) (dir string, cleanup func(), err error) {
	if src.Commit != "" && !fullSHA.MatchString(src.Commit) {
		return "", nil, fmt.Errorf("commit %q is not a full 40-character SHA", src.Commit)
	}
	clone, err := os.MkdirTemp("", "driftdeck-program-")
	if err != nil {
		return "", nil, err
	}
	remove := func() { _ = os.RemoveAll(clone) }
	defer func() {
		if err != nil {
			remove()
		}
	}()

	opts := &git.CloneOptions{URL: src.Repo, RemoteName: "origin"}
	if src.Token != "" {
		opts.ClientOptions = []client.Option{client.WithHTTPAuth(&http.BasicAuth{Username: "git", Password: src.Token})}
	}
	if src.Commit == "" {
		opts.Depth, opts.SingleBranch, opts.Tags = 1, true, git.NoTags
		if src.Branch != "" {
			opts.ReferenceName = plumbing.NewBranchReferenceName(strings.TrimPrefix(src.Branch, "refs/heads/"))
		}
	} else {
		opts.NoCheckout = true
	}
	repo, err := git.PlainCloneContext(ctx, clone, opts)
	if err != nil {
		return "", nil, fmt.Errorf("clone %s: %w", src.Repo, err)
	}
	if src.Commit != "" {
		wt, err := repo.Worktree()
		if err != nil {
			return "", nil, err
		}
		if err := wt.Checkout(&git.CheckoutOptions{Hash: plumbing.NewHash(src.Commit), Force: true}); err != nil {
			return "", nil, fmt.Errorf("check out %s: %w", src.Commit, err)
		}
	}

	dir = filepath.Join(clone, filepath.FromSlash(src.Dir))
	if rel, err := filepath.Rel(clone, dir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", nil, fmt.Errorf("repoDir %q leaves the repository", src.Dir)
	}
	if !hasProject(dir) {
		return "", nil, errors.New("no Pulumi.yaml in " + orRoot(src.Dir))
	}
	return dir, remove, nil
}

func hasProject(dir string) bool {
	for _, name := range []string{"Pulumi.yaml", "Pulumi.yml"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

func orRoot(dir string) string {
	if dir == "" {
		return "the repository root"
	}
	return dir
}
