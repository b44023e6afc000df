package pulumirun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/driftdeck/driftdeck/backend/localrender"
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

	if err := localrender.Clone(ctx, localrender.CloneSource{Repo: src.Repo, Commit: src.Commit, Branch: src.Branch, Dest: clone, Token: src.Token}); err != nil {
		return "", nil, err
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
