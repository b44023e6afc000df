package helperbin

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

const modulePath = "github.com/driftdeck/driftdeck"

// builds remembers, per helper, the one build from a checkout this process
// made (or its error), so a second preview does not build again.
var builds sync.Map // helper name -> *checkoutBuild

type checkoutBuild struct {
	once sync.Once
	path string
	err  error
}

// fromCheckout builds h from the driftdeck checkout in the working directory
// when driftdeck itself was started by `go run` (the README's first command):
// then nothing was installed beside it, and the checkout and the go tool are
// at hand. ok is false when driftdeck is an installed binary, or when there
// is no go tool to build with.
func (h Helper) fromCheckout(self, workDir, cacheDir string) (path string, ok bool, err error) {
	if _, err := exec.LookPath("go"); err != nil || !builtByGoRun(self) {
		return "", false, nil
	}
	root, found := moduleRoot(workDir)
	if !found {
		return "", false, nil
	}
	if _, err := os.Stat(filepath.Join(root, "cmd", h.Name)); err != nil {
		return "", false, nil
	}
	b, _ := builds.LoadOrStore(h.Name, &checkoutBuild{})
	cb := b.(*checkoutBuild)
	cb.once.Do(func() { cb.path, cb.err = buildFrom(root, h.Name, cacheDir) })
	return cb.path, true, cb.err
}

// builtByGoRun reports whether self is what `go run` linked: into
// <tmp>/go-build…/b001/exe/<name>, or, from Go 1.24 on, into the build cache
// (<GOCACHE>/xx/<hash>-d/<name>), where a second `go run` of the same code
// runs it from. Test binaries (b001/<pkg>.test) and installed ones are not.
func builtByGoRun(self string) bool {
	dir := filepath.Dir(self)
	if filepath.Base(dir) == "exe" && strings.Contains(dir, string(filepath.Separator)+"go-build") {
		return true
	}
	if !strings.HasSuffix(dir, "-d") {
		return false
	}
	cache, err := goCache()
	return err == nil && filepath.IsAbs(cache) && strings.HasPrefix(dir, cache+string(filepath.Separator))
}

// goCache is the go tool's build cache, asked once: every preview looks
// its helper up again.
var goCache = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	return strings.TrimSpace(string(out)), err
})

func buildFrom(root, name, cacheDir string) (string, error) {
	dir := filepath.Join(cacheDir, "driftdeck", "helpers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(dir, name)
	// Built beside and renamed: another driftdeck may run the last build.
	tmp := fmt.Sprintf("%s.partial-%d", out, os.Getpid())
	defer os.Remove(tmp)
	// The flags of `go run`'s own build (none): the packages it compiled
	// are reused from the build cache instead of compiled again (with
	// -trimpath, the first local diff of a fresh checkout took minutes).
	cmd := exec.Command("go", "build", "-o", tmp, "./cmd/"+name)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the %s helper from %s: %w: %s", name, root, err, strings.TrimSpace(stderr.String()))
	}
	return out, os.Rename(tmp, out)
}

// moduleRoot finds the driftdeck module at or above dir.
func moduleRoot(dir string) (string, bool) {
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			first, _, _ := bytes.Cut(b, []byte("\n"))
			return dir, strings.TrimSpace(string(first)) == "module "+modulePath
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
