package testcluster

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// hostTofuNames are the binaries driftdeck runs root modules with.
var hostTofuNames = []string{"tofu", "terraform"}

// hideHostTofu keeps a tofu or terraform installed on the machine off the
// tests' PATH. The demo makes its root modules with whichever it finds, so
// every demo test would run the machine's own, of any version (a quarter of
// ui/cli's CPU on a machine with terraform in /usr/local/bin); the tests of
// root modules put the OpenTofu the tools build (DRIFTDECK_TOFU) first on
// PATH themselves. A directory of PATH holding either is replaced by one of
// links to its other entries. It returns the directory to remove after the
// tests ("" when PATH had neither).
func hideHostTofu() (string, error) {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	var links string
	for i, dir := range dirs {
		if !holdsTofu(dir) {
			continue
		}
		if links == "" {
			var err error
			if links, err = os.MkdirTemp("", "driftdeck-path-"); err != nil {
				return "", err
			}
		}
		without := filepath.Join(links, strconv.Itoa(i))
		if err := linkAllBut(dir, without, hostTofuNames); err != nil {
			os.RemoveAll(links)
			return "", err
		}
		dirs[i] = without
	}
	if links == "" {
		return "", nil
	}
	return links, os.Setenv("PATH", strings.Join(dirs, string(os.PathListSeparator)))
}

// holdsTofu reports whether dir has an entry of one of hostTofuNames.
func holdsTofu(dir string) bool {
	for _, name := range hostTofuNames {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// linkAllBut makes dst a directory of symbolic links to every entry of src
// but those named in skip.
func linkAllBut(src, dst string, skip []string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		if slices.Contains(skip, e.Name()) {
			continue
		}
		if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
