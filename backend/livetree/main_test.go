package livetree

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// The package's control plane serves the newest upstream Argo CD CRDs when
// ../shared/crds holds them, else the project's own copies.
func TestMain(m *testing.M) { testcluster.Main(m, testcluster.Options{CRDSets: newestArgoCRDs()}) }

func newestArgoCRDs() []testcluster.CRDSet {
	dir, err := testcluster.SharedCRDsDir()
	if err != nil {
		return nil
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "argocd-v*"))
	if len(matches) == 0 {
		return nil
	}
	// argocd-v2.14.21 < argocd-v3.5.1: compare the versions' numbers.
	sort.Slice(matches, func(i, j int) bool { return versionLess(matches[i], matches[j]) })
	newest := matches[len(matches)-1]
	if fi, err := os.Stat(newest); err != nil || !fi.IsDir() {
		return nil
	}
	return []testcluster.CRDSet{{Name: filepath.Base(newest), Dir: newest}}
}

func versionLess(a, b string) bool {
	pa := strings.Split(strings.TrimPrefix(filepath.Base(a), "argocd-v"), ".")
	pb := strings.Split(strings.TrimPrefix(filepath.Base(b), "argocd-v"), ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if len(pa[i]) != len(pb[i]) {
			return len(pa[i]) < len(pb[i])
		}
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return len(pa) < len(pb)
}
