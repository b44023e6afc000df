package testargocd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// Environment variables this package reads (make test sets them).
const (
	// EnvArgoCD is the argocd multi-call binary.
	EnvArgoCD = "DRIFTDECK_ARGOCD"
	// EnvRedis is redis-server; "" looks on PATH.
	EnvRedis = "DRIFTDECK_REDIS"
	// EnvHelm is the helm binary the repo-server runs for Helm sources;
	// "" looks in the tool cache.
	EnvHelm = "DRIFTDECK_HELM"
)

var errNotBuilt = errors.New("the real Argo CD controller is not built: run `make tools` " +
	"(or testdata/tools/build.sh argocd), or set " + EnvArgoCD + " and " + EnvRedis)

type binaries struct{ argocd, redis, helm string }

// findBinaries locates argocd (the variable, else the tool cache) and
// redis-server (the variable, else PATH).
func findBinaries() (binaries, error) {
	b := binaries{argocd: os.Getenv(EnvArgoCD), redis: os.Getenv(EnvRedis), helm: os.Getenv(EnvHelm)}
	if b.argocd == "" {
		b.argocd = cached("argocd")
	}
	if b.helm == "" {
		b.helm = cached("helm")
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

// cached finds the newest build of a tool in the tool cache.
func cached(tool string) string {
	root := os.Getenv("DRIFTDECK_TOOLS_CACHE")
	if root == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		root = filepath.Join(dir, "driftdeck", "tools")
	}
	matches, _ := filepath.Glob(filepath.Join(root, tool+"-*", tool))
	for i := len(matches) - 1; i >= 0; i-- {
		if !strings.Contains(matches[i], ".partial") {
			return matches[i]
		}
	}
	return ""
}

// RequireHelm skips (or, when real-cluster tests are required, fails) a
// test of a Helm source when the repo-server has no helm to run.
func (a *ArgoCD) RequireHelm(t testing.TB) {
	t.Helper()
	if a.bins.helm == "" {
		testcluster.SkipUnlessBuilt(t, errNoHelm, errNoHelm)
	}
}

var errNoHelm = errors.New("helm is not built: run `make tools` (or testdata/tools/build.sh helm), or set " + EnvHelm)
