package rootmod

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/model"
)

// DefaultWorkspace is the workspace tofu uses when none is selected.
const DefaultWorkspace = "default"

// Root is one workspace of one root module.
type Root struct {
	// Name is the unit's name: the directory's by default.
	Name string
	// Dir is the module's directory, absolute.
	Dir       string
	Workspace string
	// VarFiles are passed to every plan as -var-file, relative to Dir or
	// absolute.
	VarFiles []string
	// BackendConfig are the -backend-config values of init (key=value, or a
	// file).
	BackendConfig []string
	// Git, when set, is the repository Dir is checked out from: into
	// checkout, driftdeck's own clone of it.
	Git      *config.RootGit
	checkout string
	// Given says where the module was named (model.RootFacts.Given).
	Given string
	// Cache, when set, holds the root's working data and plans instead of
	// the Tofu's cache (the demo keeps its modules' beside them).
	Cache string
}

// Key is the unit's key: root/<workspace>/<name>, in no cluster context.
func (r Root) Key() model.Key {
	return model.Key{Engine: model.EngineRoot, Namespace: r.Workspace, Name: r.Name}
}

// id names the root's working data in the cache: the same module,
// workspace and backend settings always find the same directory.
func (r Root) id() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s", r.Dir, r.Workspace, strings.Join(r.BackendConfig, "\x00"))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// FromDir is the root of `--root DIR`: the default workspace, named after
// the directory.
func FromDir(dir string) (Root, error) {
	r := Root{Dir: dir, Workspace: DefaultWorkspace}
	if err := r.complete(); err != nil {
		return Root{}, err
	}
	return r, nil
}

// complete makes Dir absolute, names the root after it when unnamed, and
// says what is wrong with it.
func (r *Root) complete() error {
	if r.Dir == "" {
		return errors.New("root module: no directory")
	}
	abs, err := filepath.Abs(r.Dir)
	if err != nil {
		return fmt.Errorf("root module %s: %w", r.Dir, err)
	}
	r.Dir = abs
	if r.Name == "" {
		r.Name = filepath.Base(abs)
	}
	if r.Workspace == "" {
		r.Workspace = DefaultWorkspace
	}
	if strings.Contains(r.Name, "/") || strings.Contains(r.Workspace, "/") {
		return fmt.Errorf("root module %s: a name or workspace cannot hold '/'", abs)
	}
	if r.Git == nil && !hasConfig(abs) {
		return fmt.Errorf("root module %s: no .tf or .tofu files there", abs)
	}
	return nil
}

// hasConfig tells whether dir holds a module's configuration.
func hasConfig(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && (strings.HasSuffix(n, ".tf") || strings.HasSuffix(n, ".tofu") || strings.HasSuffix(n, ".tf.json") || strings.HasSuffix(n, ".tofu.json")) {
			return true
		}
	}
	return false
}

// Check completes every root and refuses two with the same key.
func Check(roots []Root) ([]Root, error) {
	seen := map[model.Key]string{}
	out := make([]Root, 0, len(roots))
	for _, r := range roots {
		if err := r.complete(); err != nil {
			return nil, err
		}
		if dir, dup := seen[r.Key()]; dup {
			return nil, fmt.Errorf("root modules %s and %s are both %s: name one of them (roots: name)", dir, r.Dir, r.Key().Ref())
		}
		seen[r.Key()] = r.Dir
		out = append(out, r)
	}
	return out, nil
}

// FromConfig are the root modules of the config file (each workspace a
// unit), then those of dirs (--root), checked.
func FromConfig(modules []config.RootModule, dirs []string) ([]Root, error) {
	var list []Root
	for _, rm := range modules {
		workspaces := rm.Workspaces
		if len(workspaces) == 0 {
			workspaces = []string{DefaultWorkspace}
		}
		for _, ws := range workspaces {
			r := Root{Name: rm.Name, Dir: rm.Path, Workspace: ws, VarFiles: rm.VarFiles, BackendConfig: rm.BackendConfig, Given: GivenConfig}
			if rm.Git != nil {
				if err := r.fromGit(rm.Git); err != nil {
					return nil, err
				}
			}
			list = append(list, r)
		}
	}
	for _, dir := range dirs {
		r, err := FromDir(dir)
		if err != nil {
			return nil, err
		}
		r.Given = GivenFlag
		if !slices.ContainsFunc(list, func(c Root) bool { return c.Key() == r.Key() && sameDir(c.Dir, r.Dir) }) {
			list = append(list, r) // the config's entry already reads it
		}
	}
	if len(list) == 0 {
		return nil, nil
	}
	return Check(list)
}

// sameDir tells whether two module paths name the same directory.
func sameDir(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && a == b
}

// Where a root module was named.
const (
	GivenFlag   = "flag"
	GivenConfig = "config"
	GivenDemo   = "demo"
)

// Flags are the global flags a printed command needs to find the root
// module of k in dir again: --root DIR for one named by that flag, none
// for one the config or the demo names.
func Flags(given, dir string) []string {
	if given == GivenFlag {
		return []string{"--root", dir}
	}
	return nil
}

// fromGit places the root in driftdeck's checkout of g: the same
// repository and ref always find the same checkout.
func (r *Root) fromGit(g *config.RootGit) error {
	cache, err := DefaultCache()
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(g.URL + "\x00" + g.Ref))
	r.Git, r.checkout = g, filepath.Join(cache, "git", hex.EncodeToString(sum[:8]))
	r.Dir = filepath.Join(r.checkout, filepath.FromSlash(g.Dir))
	if rel, err := filepath.Rel(r.checkout, r.Dir); err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("root module %s: dir %q leaves the repository", g.URL, g.Dir)
	}
	if r.Name == "" {
		r.Name = strings.TrimSuffix(path.Base(strings.TrimSuffix(g.URL, "/")), ".git")
		if g.Dir != "" {
			r.Name = path.Base(g.Dir)
		}
	}
	return nil
}
