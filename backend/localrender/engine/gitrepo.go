package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	git "github.com/go-git/go-git/v6"
	"github.com/go-git/go-git/v6/config"
	"github.com/go-git/go-git/v6/plumbing"
	"github.com/go-git/go-git/v6/plumbing/filemode"
	"github.com/go-git/go-git/v6/plumbing/object"

	"github.com/driftdeck/driftdeck/backend/localrender"
)

// repoCache keeps one bare clone per repository URL under dir, fetched again
// whenever a revision is asked for that is not a commit already there.
type repoCache struct {
	dir string
}

// repoLocks serialises work on one clone within the process.
var repoLocks sync.Map // clone dir -> *sync.Mutex

func defaultCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "driftdeck", "argodiff"), nil
}

var fullHash = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// checkout writes the repository's files at revision into dest and returns
// the commit's hash. An empty revision or HEAD means the default branch.
func (c repoCache) checkout(ctx context.Context, repoURL, revision, dest string) (string, error) {
	dir := localrender.CloneDir(c.dir, repoURL)
	mu, _ := repoLocks.LoadOrStore(dir, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()

	repo, err := openOrInit(dir, repoURL)
	if err != nil {
		return "", fmt.Errorf("repository cache %s: %w", dir, err)
	}
	// A full commit hash already fetched never changes: no need to ask the remote.
	hash, ok := localCommit(repo, revision)
	if !ok {
		if err := fetch(ctx, repo); err != nil {
			return "", fmt.Errorf("fetching %s: %w", localrender.RedactURL(repoURL), err)
		}
		if hash, ok = resolve(repo, revision); !ok {
			return "", fmt.Errorf("revision %q not found in %s (after fetching its branches and tags)", revision, localrender.RedactURL(repoURL))
		}
	}
	commit, err := repo.CommitObject(hash)
	if err != nil {
		return "", fmt.Errorf("%s at %s: %w", localrender.RedactURL(repoURL), hash, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return "", err
	}
	if err := writeTree(tree, dest); err != nil {
		return "", fmt.Errorf("%s at %s: %w", localrender.RedactURL(repoURL), hash, err)
	}
	return hash.String(), nil
}

func openOrInit(dir, repoURL string) (*git.Repository, error) {
	repo, err := git.PlainOpen(dir)
	if err == nil {
		return repo, nil
	}
	if !errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if repo, err = git.PlainInit(dir, true); err != nil {
		return nil, err
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{localRepoURL(repoURL)}}); err != nil {
		return nil, err
	}
	return repo, nil
}

// localRepoURL turns a plain path into a file:// URL; anything else is used
// as given.
func localRepoURL(repoURL string) string {
	if strings.HasPrefix(repoURL, "/") {
		return "file://" + repoURL
	}
	return repoURL
}

// fetch mirrors every branch and tag, and the remote's HEAD (its default
// branch), which is what an empty targetRevision and HEAD follow.
func fetch(ctx context.Context, repo *git.Repository) error {
	err := repo.FetchContext(ctx, &git.FetchOptions{
		RemoteName: "origin",
		RefSpecs: []config.RefSpec{
			"+refs/heads/*:refs/remotes/origin/*",
			"+refs/tags/*:refs/tags/*",
			"+HEAD:refs/remotes/origin/HEAD",
		},
		Tags:  plumbing.NoTags,
		Force: true,
		Prune: true,
	})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	return err
}

func localCommit(repo *git.Repository, revision string) (plumbing.Hash, bool) {
	if !fullHash.MatchString(revision) {
		return plumbing.ZeroHash, false
	}
	h := plumbing.NewHash(revision)
	if _, err := repo.CommitObject(h); err != nil {
		return plumbing.ZeroHash, false
	}
	return h, true
}

// resolve finds a revision as Argo CD's repo server does: HEAD or empty is the
// default branch, then a branch, a tag, or a commit hash (or its prefix).
func resolve(repo *git.Repository, revision string) (plumbing.Hash, bool) {
	var candidates []string
	switch rev := strings.TrimPrefix(revision, "refs/heads/"); {
	case revision == "" || revision == "HEAD":
		candidates = []string{"refs/remotes/origin/HEAD"}
	case strings.HasPrefix(revision, "refs/tags/"):
		candidates = []string{revision}
	default:
		candidates = []string{"refs/remotes/origin/" + rev, "refs/tags/" + rev, revision}
	}
	for _, cand := range candidates {
		if h, err := repo.ResolveRevision(plumbing.Revision(cand)); err == nil {
			return *h, true
		}
	}
	return plumbing.ZeroHash, false
}

// writeTree writes every file of the tree under dest. Symbolic links are
// recreated only when they stay inside dest (Argo CD refuses the others too);
// submodules are left out.
func writeTree(tree *object.Tree, dest string) error {
	return tree.Files().ForEach(func(f *object.File) error {
		target := filepath.Join(dest, filepath.FromSlash(f.Name))
		if !inside(dest, target) {
			return fmt.Errorf("path %q leaves the repository", f.Name)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return err
		}
		if f.Mode == filemode.Symlink {
			link, err := f.Contents()
			if err != nil {
				return err
			}
			resolved := link
			if !filepath.IsAbs(link) {
				resolved = filepath.Join(filepath.Dir(target), link)
			}
			if !inside(dest, resolved) {
				return fmt.Errorf("symbolic link %q points outside the repository", f.Name)
			}
			return os.Symlink(link, target)
		}
		return writeBlob(f, target)
	})
}

func writeBlob(f *object.File, target string) error {
	r, err := f.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
