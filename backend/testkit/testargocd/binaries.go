package testargocd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Environment variables this package reads (make test sets them).
const (
	// EnvArgoCD is the argocd multi-call binary.
	EnvArgoCD = "DRIFTDECK_ARGOCD"
	// EnvRedis is redis-server; "" looks on PATH.
	EnvRedis = "DRIFTDECK_REDIS"
)

var errNotBuilt = errors.New("the real Argo CD controller is not built: run `make tools` " +
	"(or testdata/tools/build.sh argocd), or set " + EnvArgoCD + " and " + EnvRedis)

type binaries struct{ argocd, redis string }

// findBinaries locates argocd (the variable, else the tool cache) and
// redis-server (the variable, else PATH).
func findBinaries() (binaries, error) {
	b := binaries{argocd: os.Getenv(EnvArgoCD), redis: os.Getenv(EnvRedis)}
	if b.argocd == "" {
		b.argocd = cached()
	}
	if b.redis == "" {
		b.redis, _ = exec.LookPath("redis-server")
	}
	for _, p := range []string{b.argocd, b.redis} {
		if p == "" {
			return b, errNotBuilt
		}
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return b, errors.Join(errNotBuilt, err)
		}
	}
	return b, nil
}

// cached finds the newest argocd build in the tool cache.
func cached() string {
	root := os.Getenv("DRIFTDECK_TOOLS_CACHE")
	if root == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		root = filepath.Join(dir, "driftdeck", "tools")
	}
	matches, _ := filepath.Glob(filepath.Join(root, "argocd-*", "argocd"))
	for i := len(matches) - 1; i >= 0; i-- {
		if !strings.Contains(matches[i], ".partial") {
			return matches[i]
		}
	}
	return ""
}
