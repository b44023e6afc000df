package sim

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
)

// Git stands in for the repositories the controllers resolve: which commit a
// branch points at now, and which paths recent pushes touched. Controllers
// subscribe to pushes, the way a webhook from the git host reaches Argo CD
// and an ls-remote poll reaches the Pulumi operator. It is safe for
// concurrent use.
type Git struct {
	mu       sync.Mutex
	branches map[string]*branch
	subs     []func(repo, ref, sha string)
	seq      int
}

type branch struct {
	base   string // where the branch pointed before the kept pushes
	head   string
	pushes []push // newest last, bounded
}

type push struct {
	sha   string
	paths []string // empty: the push touched everything
}

const keptPushes = 200

// NewGit returns repositories with no known branches.
func NewGit() *Git { return &Git{branches: map[string]*branch{}} }

func gitKey(repo, ref string) string {
	return strings.TrimSuffix(repo, ".git") + "@" + NormalizeRef(ref)
}

// NormalizeRef maps the spellings of a branch onto one: "refs/heads/main" and
// "main" are the same branch, "" is HEAD.
func NormalizeRef(ref string) string {
	ref = strings.TrimPrefix(ref, "refs/heads/")
	if ref == "" {
		return "HEAD"
	}
	return ref
}

// Set records where a branch points without telling subscribers (for seeding).
func (g *Git) Set(repo, ref, sha string) {
	g.mu.Lock()
	g.branches[gitKey(repo, ref)] = &branch{base: sha, head: sha}
	g.mu.Unlock()
}

// Head returns the commit a branch points at, and false when the branch is
// unknown (the controllers then leave revisions alone).
func (g *Git) Head(repo, ref string) (string, bool) {
	if g == nil {
		return "", false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	b, ok := g.branches[gitKey(repo, ref)]
	if !ok {
		return "", false
	}
	return b.head, true
}

// Touched reports whether a commit after from (up to the head) changed path.
// When from is not among the recent pushes the answer is true: whatever
// happened since is unknown.
func (g *Git) Touched(repo, ref, from, path string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	b, ok := g.branches[gitKey(repo, ref)]
	if !ok {
		return true
	}
	// Newest first: a push touching path before from is reached means a
	// change after from.
	for i := len(b.pushes) - 1; i >= 0; i-- {
		p := b.pushes[i]
		if p.sha == from {
			return false
		}
		if len(p.paths) == 0 {
			return true
		}
		for _, changed := range p.paths {
			if within(path, changed) {
				return true
			}
		}
	}
	return from != b.base
}

func within(path, changed string) bool {
	path, changed = strings.Trim(path, "/"), strings.Trim(changed, "/")
	return path == "" || changed == "" || path == changed || strings.HasPrefix(path, changed+"/") || strings.HasPrefix(changed, path+"/")
}

// Push moves a branch to a new commit that changes the given paths (none:
// everything) and tells the subscribers. It returns the new commit.
func (g *Git) Push(repo, ref string, paths ...string) string {
	g.mu.Lock()
	g.seq++
	k := gitKey(repo, ref)
	b, ok := g.branches[k]
	if !ok {
		b = &branch{}
		g.branches[k] = b
	}
	sum := sha1.Sum(fmt.Appendf(nil, "%s %s %d %s", repo, ref, g.seq, b.head))
	sha := hex.EncodeToString(sum[:])
	b.head = sha
	b.pushes = append(b.pushes, push{sha: sha, paths: paths})
	if drop := len(b.pushes) - keptPushes; drop > 0 {
		b.base = b.pushes[drop-1].sha
		b.pushes = append([]push(nil), b.pushes[drop:]...)
	}
	subs := append([]func(string, string, string){}, g.subs...)
	g.mu.Unlock()
	for _, f := range subs {
		f(repo, NormalizeRef(ref), sha)
	}
	return sha
}

// Subscribe registers a function called after every push. A nil Git never
// pushes.
func (g *Git) Subscribe(f func(repo, ref, sha string)) {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.subs = append(g.subs, f)
	g.mu.Unlock()
}

// SameRepo reports whether two repository URLs name the same repository.
func SameRepo(a, b string) bool {
	return strings.TrimSuffix(a, ".git") == strings.TrimSuffix(b, ".git")
}
