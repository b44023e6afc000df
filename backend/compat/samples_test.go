package compat

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// A sample is a realistic object, shaped as the upstream controllers leave
// them, in testdata/samples/<family>/. A family applies to the upstream sets
// named after it: the family itself, or it followed by "-" or "." (argocd:
// argocd-v2.14.21 and argocd-v3.5.1; pulumi-operator-v2:
// pulumi-operator-v2.9.0). Every family applies to the project's own set.
type sample struct {
	family, file string
	obj          *unstructured.Unstructured
}

func (s sample) id() string { return s.family + "/" + strings.TrimSuffix(s.file, ".yaml") }

func loadSamples(t *testing.T) []sample {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "samples", "*", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no samples under testdata/samples (%v)", err)
	}
	sort.Strings(paths)
	var out []sample
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(raw, &obj); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, sample{
			family: filepath.Base(filepath.Dir(p)),
			file:   filepath.Base(p),
			obj:    &unstructured.Unstructured{Object: obj},
		})
	}
	return out
}

func familyApplies(family string, set testcluster.CRDSet) bool {
	if set.Name == testcluster.OwnName || set.Name == family {
		return true
	}
	rest, ok := strings.CutPrefix(set.Name, family)
	return ok && (strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "."))
}

func samplesFor(set testcluster.CRDSet, all []sample) []sample {
	var out []sample
	for _, s := range all {
		if familyApplies(s.family, set) {
			out = append(out, s)
		}
	}
	return out
}

func TestFamiliesMatchSetsAtVersionBoundaries(t *testing.T) {
	for _, c := range []struct {
		family, set string
		want        bool
	}{
		{"argocd", "argocd-v2.14.21", true},
		{"argocd", "argocd-v3.5.1", true},
		{"pulumi-operator-v2", "pulumi-operator-v2.9.0", true},
		{"pulumi-operator-v1", "pulumi-operator-v1.16.0", true},
		{"pulumi-operator-v1", "pulumi-operator-v10.0.0", false},
		{"pulumi-operator-v2", "pulumi-operator-v1.16.0", false},
		{"flux", "flux", true},
		{"flux", "fluxcd-v2", false},
		{"tofu-controller", "tofu-controller-v0.16.5", true},
		{"argocd", testcluster.OwnName, true},
	} {
		if got := familyApplies(c.family, testcluster.CRDSet{Name: c.set}); got != c.want {
			t.Errorf("familyApplies(%q, %q) = %v, want %v", c.family, c.set, got, c.want)
		}
	}
}
