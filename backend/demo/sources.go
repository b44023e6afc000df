package demo

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/localrender"
)

//go:generate go run ./internal/gensources

// embeddedSources are the demo's source repositories, as bare git
// repositories written by gensources: the Flux Kustomizations of team-web
// are built from them, and its HelmRelease's chart rendered.
//
//go:embed all:sources
var embeddedSources embed.FS

// sourceRepos maps the URL each GitRepository names to its directory in
// embeddedSources.
var sourceRepos = map[string]string{webRepo: "web.git", chartsRepo: "charts.git"}

// sourceCaches are the clone caches of each running demo, by its cluster.
var sourceCaches = struct {
	sync.Mutex
	byCluster map[*kube.Cluster]string
}{byCluster: map[*kube.Cluster]string{}}

// writeSources lays the embedded repositories out in dir as the render
// helper's clone cache keeps its clones: a commit they hold is checked out
// from there, and they have no remote to fetch from. A copy already there
// with the same head is left as it is (another demo may be reading it);
// another is replaced whole.
func writeSources(dir string) error {
	for url, name := range sourceRepos {
		if err := writeSource(localrender.CloneDir(dir, url), path.Join("sources", name)); err != nil {
			return fmt.Errorf("the demo's copy of %s: %w", url, err)
		}
	}
	return nil
}

func writeSource(dest, embedded string) error {
	head, err := embeddedSources.ReadFile(path.Join(embedded, "refs", "heads", "main"))
	if err != nil {
		return err
	}
	if have, err := os.ReadFile(filepath.Join(dest, "refs", "heads", "main")); err == nil && bytes.Equal(have, head) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), ".clone-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	repo, err := fs.Sub(embeddedSources, embedded)
	if err == nil {
		err = os.CopyFS(tmp, repo)
	}
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dest); err != nil {
		return err
	}
	return os.Rename(tmp, dest)
}

// SourceCache is the clone cache a Kustomization diff of demo cluster c
// renders from, and reach refuses every repository the demo holds no copy
// of, so that the demo never reaches the network. ok is false (and reach
// nil) for every cluster but a running demo's.
func SourceCache(c *kube.Cluster) (dir string, reach func(repoURL string) error, ok bool) {
	sourceCaches.Lock()
	defer sourceCaches.Unlock()
	if dir, ok = sourceCaches.byCluster[c]; !ok {
		return "", nil, false
	}
	return dir, reachable, true
}

func reachable(repoURL string) error {
	if _, ok := sourceRepos[repoURL]; ok {
		return nil
	}
	return fmt.Errorf("the demo holds no copy of %s and never reaches the network: only %s and %s are rendered locally", localrender.RedactURL(repoURL), webRepo, chartsRepo)
}
