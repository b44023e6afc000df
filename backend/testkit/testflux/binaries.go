package testflux

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// EnvFluxDir is the directory with source-controller, kustomize-controller
// and crds/ (make test sets it).
const EnvFluxDir = "DRIFTDECK_FLUX_DIR"

var errNotBuilt = errors.New("Flux's controllers are not built: run `make tools` " +
	"(or testdata/tools/build.sh flux), or set " + EnvFluxDir)

// findDir locates the controllers: the variable, else the tool cache.
func findDir() (string, error) {
	dir := os.Getenv(EnvFluxDir)
	if dir == "" {
		dir = cached()
	}
	if dir == "" {
		return "", errNotBuilt
	}
	for _, p := range []string{"source-controller", "kustomize-controller", "crds"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			return "", errors.Join(errNotBuilt, err)
		}
	}
	return dir, nil
}

// cached finds the newest Flux build in the tool cache.
func cached() string {
	root := os.Getenv("DRIFTDECK_TOOLS_CACHE")
	if root == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		root = filepath.Join(dir, "driftdeck", "tools")
	}
	matches, _ := filepath.Glob(filepath.Join(root, "flux-*", "kustomize-controller"))
	for i := len(matches) - 1; i >= 0; i-- {
		if !strings.Contains(matches[i], ".partial") {
			return filepath.Dir(matches[i])
		}
	}
	return ""
}
