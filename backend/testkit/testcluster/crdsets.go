package testcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// CRDSet is a named folder of CRD manifests: the project's own (testdata/crds)
// or one upstream release (a folder of ../shared/crds, e.g. argocd-v3.5.1).
type CRDSet struct {
	Name string
	Dir  string
}

// OwnName is the name of the project's own CRD set.
const OwnName = "driftdeck"

// OwnCRDs is the project's own CRD set, testdata/crds.
func OwnCRDs() (CRDSet, error) {
	root, err := RepoRoot()
	if err != nil {
		return CRDSet{}, err
	}
	return CRDSet{Name: OwnName, Dir: filepath.Join(root, "testdata", "crds")}, nil
}

// SharedCRDsDir is where the upstream CRD sets are: $DRIFTDECK_SHARED_CRDS,
// else ../shared/crds next to the repository.
func SharedCRDsDir() (string, error) {
	if dir := os.Getenv(EnvSharedCRDs); dir != "" {
		return dir, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(root), "shared", "crds"), nil
}

// UpstreamCRDSets lists the upstream CRD sets, one per folder of
// SharedCRDsDir, sorted by name. It returns none when that folder does not
// exist (a checkout without it); the caller decides whether to skip.
func UpstreamCRDSets(t testing.TB) []CRDSet {
	t.Helper()
	dir, err := SharedCRDsDir()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("reading upstream CRD sets: %v", err)
	}
	var sets []CRDSet
	for _, e := range entries {
		if e.IsDir() {
			sets = append(sets, CRDSet{Name: e.Name(), Dir: filepath.Join(dir, e.Name())})
		}
	}
	sort.Slice(sets, func(i, j int) bool { return sets[i].Name < sets[j].Name })
	// Start reading them all now: they are megabytes of YAML, read in seconds.
	for _, s := range sets {
		go s.CRDs() //nolint:errcheck // the caller's own call reports errors
	}
	return sets
}

// UpstreamCRDSetsServing lists the upstream sets that serve a kind, e.g. both
// Argo CD generations for argoproj.io/v1alpha1 Application.
func UpstreamCRDSetsServing(t testing.TB, gvk schema.GroupVersionKind) []CRDSet {
	t.Helper()
	var out []CRDSet
	for _, s := range UpstreamCRDSets(t) {
		crd, err := s.CRD(gvk)
		if err != nil {
			t.Fatal(err)
		}
		if crd != nil {
			out = append(out, s)
		}
	}
	return out
}

// RequireUpstreamCRDSetsServing is UpstreamCRDSetsServing for a test whose
// whole point is those sets: it fails, naming the folder, when none serves
// the kind, rather than letting the test pass with nothing run.
func RequireUpstreamCRDSetsServing(t testing.TB, gvk schema.GroupVersionKind) []CRDSet {
	t.Helper()
	sets := UpstreamCRDSetsServing(t, gvk)
	if len(sets) == 0 {
		dir, _ := SharedCRDsDir()
		t.Fatalf("no upstream CRD set in %s serves %s: this test has nothing to run on (set %s to the folder of upstream CRD sets)", dir, gvk, EnvSharedCRDs)
	}
	return sets
}

// parsed caches each folder's CRDs: the upstream files are megabytes of YAML.
var parsed sync.Map // dir -> *parsedSet

type parsedSet struct {
	once sync.Once
	crds []*apiextensionsv1.CustomResourceDefinition
	err  error
}

// CRDs reads the set's manifests. The result is shared: copy before changing.
func (s CRDSet) CRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	v, _ := parsed.LoadOrStore(s.Dir, &parsedSet{})
	p := v.(*parsedSet)
	p.once.Do(func() { p.crds, p.err = readDir(s.Dir) })
	if p.err != nil {
		return nil, fmt.Errorf("CRD set %s: %w", s.Name, p.err)
	}
	return p.crds, nil
}

// readDir reads the CRD manifests of a folder, one file per goroutine.
func readDir(dir string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	results := make([][]*apiextensionsv1.CustomResourceDefinition, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() {
			opts := envtest.CRDInstallOptions{Paths: []string{f}, ErrorIfPathMissing: true}
			errs[i] = envtest.ReadCRDFiles(&opts)
			results[i] = opts.CRDs
		})
	}
	wg.Wait()
	var crds []*apiextensionsv1.CustomResourceDefinition
	for i := range files {
		if errs[i] != nil {
			return nil, fmt.Errorf("%s: %w", files[i], errs[i])
		}
		crds = append(crds, results[i]...)
	}
	if len(crds) == 0 {
		return nil, fmt.Errorf("no CRD manifests in %s", dir)
	}
	sort.Slice(crds, func(i, j int) bool { return crds[i].Name < crds[j].Name })
	return crds, nil
}

// CRD returns the set's definition of a kind if it serves that version, or nil.
func (s CRDSet) CRD(gvk schema.GroupVersionKind) (*apiextensionsv1.CustomResourceDefinition, error) {
	crds, err := s.CRDs()
	if err != nil {
		return nil, err
	}
	for _, crd := range crds {
		if crd.Spec.Group != gvk.Group || crd.Spec.Names.Kind != gvk.Kind {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if v.Name == gvk.Version && v.Served {
				return crd, nil
			}
		}
	}
	return nil, nil
}

// NewestUpstream names the newest upstream CRD set of every engine, which
// can share one control plane.
var NewestUpstream = []string{"argocd-v3.5.1", "pulumi-operator-v2.9.0", "flux", "tofu-controller-v0.16.5"}

// UpstreamCRDSetsNamed returns the named upstream sets; the test fails when
// one is missing (a checkout without ../shared/crds cannot run it).
func UpstreamCRDSetsNamed(t testing.TB, names ...string) []CRDSet {
	t.Helper()
	byName := map[string]CRDSet{}
	for _, s := range UpstreamCRDSets(t) {
		byName[s.Name] = s
	}
	out := make([]CRDSet, 0, len(names))
	for _, n := range names {
		s, ok := byName[n]
		if !ok {
			dir, _ := SharedCRDsDir()
			t.Fatalf("the upstream CRD set %s is not in %s", n, dir)
		}
		out = append(out, s)
	}
	return out
}
