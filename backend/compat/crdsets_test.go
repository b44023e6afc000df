package compat

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

var applicationGVK = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Application"}

// TestClusterCRDSets installs every CRD set, the upstream ones and the
// project's own, and checks each with the samples that apply to it and with
// driftdeck's Argo CD writes; then compares the project's set with upstream.
// Sets that define the same CRDs cannot share a control plane: the sets are
// grouped into rounds without conflicts, each on a control plane of its own,
// all running at once. (Measured on a busy 2-core machine: 58-59 s, against
// 70-78 s for one control plane swapping the rounds' CRDs, where deleting the
// large upstream CRDs costs seconds each.)
func TestClusterCRDSets(t *testing.T) {
	testcluster.RequireBinaries(t)
	own, err := testcluster.OwnCRDs()
	if err != nil {
		t.Fatal(err)
	}
	upstream := testcluster.UpstreamCRDSets(t)
	if len(upstream) == 0 {
		dir, _ := testcluster.SharedCRDsDir()
		t.Logf("no upstream CRD sets in %s: checking the project's own set only", dir)
	}
	samples := loadSamples(t)
	var readBack readBacks
	t0 := time.Now()
	all := rounds(t, append(upstream, own))
	t.Logf("read %d CRD sets in %v", len(upstream)+1, time.Since(t0).Round(time.Millisecond))
	t.Run("rounds", func(t *testing.T) {
		for _, round := range all {
			t.Run(strings.Join(setNames(round), "+"), func(t *testing.T) {
				t.Parallel()
				c := testcluster.Start(t, testcluster.Options{CRDSets: round})
				for _, set := range round {
					t.Run(set.Name, func(t *testing.T) { checkSet(t, c, set, samples, &readBack) })
				}
			})
		}
	})
	t.Run("own-set-reads-back-like-upstream", func(t *testing.T) {
		if len(upstream) == 0 {
			t.Skip("no upstream CRD sets to compare with")
		}
		if len(readBack.of(testcluster.OwnName)) == 0 {
			t.Fatal("no sample was read back from the project's set")
		}
		for _, set := range upstream {
			for id, theirs := range readBack.of(set.Name) {
				ours, ok := readBack.of(testcluster.OwnName)[id]
				if !ok {
					t.Errorf("sample %s was not read back from the project's set", id)
					continue
				}
				var unexpected []difference
				for _, d := range differences(theirs, ours) {
					if !slices.Contains(knownPruned[set.Name], d.pattern()) {
						unexpected = append(unexpected, d)
					}
				}
				if len(unexpected) > 0 {
					t.Errorf("sample %s reads back differently from the project's CRDs than from %s:\n  %s",
						id, set.Name, lines(unexpected))
				}
			}
		}
	})
}

// readBacks keeps each sample as read back, per set.
type readBacks struct {
	mu   sync.Mutex
	sets map[string]map[string]map[string]any
}

func (r *readBacks) put(set, id string, obj map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sets == nil {
		r.sets = map[string]map[string]map[string]any{}
	}
	if r.sets[set] == nil {
		r.sets[set] = map[string]map[string]any{}
	}
	r.sets[set][id] = obj
}

func (r *readBacks) of(set string) map[string]map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sets[set]
}

func setNames(sets []testcluster.CRDSet) []string {
	var out []string
	for _, s := range sets {
		out = append(out, s.Name)
	}
	return out
}

// rounds groups the sets so that no two sets in a round define the same CRD.
func rounds(t *testing.T, sets []testcluster.CRDSet) [][]testcluster.CRDSet {
	t.Helper()
	var out [][]testcluster.CRDSet
	var names []map[string]bool
	for _, set := range sets {
		crds, err := set.CRDs()
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for ; i < len(out); i++ {
			if !definesAny(names[i], crds) {
				break
			}
		}
		if i == len(out) {
			out, names = append(out, nil), append(names, map[string]bool{})
		}
		out[i] = append(out[i], set)
		for _, crd := range crds {
			names[i][crd.Name] = true
		}
	}
	return out
}

func definesAny(names map[string]bool, crds []*apiextensionsv1.CustomResourceDefinition) bool {
	for _, crd := range crds {
		if names[crd.Name] {
			return true
		}
	}
	return false
}

func checkSet(t *testing.T, c *testcluster.Cluster, set testcluster.CRDSet, all []sample, readBack *readBacks) {
	ns := c.Namespace(t)
	samples := samplesFor(set, all)
	if len(samples) == 0 {
		t.Fatalf("no samples apply to CRD set %s: add testdata/samples/<family>/ for it", set.Name)
	}
	pruned := map[string]bool{}
	for _, s := range samples {
		t.Run("round-trip:"+s.id(), func(t *testing.T) {
			obj, lost := roundTrip(t, c, set, s, ns)
			readBack.put(set.Name, s.id(), obj)
			for _, p := range lost {
				pruned[p] = true
			}
		})
	}
	for _, p := range knownPruned[set.Name] {
		if !pruned[p] {
			t.Errorf("%s is listed as pruned by %s, but no sample lost it: update knownPruned", p, set.Name)
		}
	}
	crd, err := set.CRD(applicationGVK)
	if err != nil {
		t.Fatal(err)
	}
	if crd != nil {
		t.Run("automated.enabled", func(t *testing.T) { checkAutomatedEnabled(t, c, set, crd, ns) })
		t.Run("sync-operation", func(t *testing.T) { checkSyncOperation(t, c, ns) })
		t.Run("terminate", func(t *testing.T) { checkTerminate(t, c, ns) })
	}
}

// knownPruned lists, per upstream set, the fields of the samples that its
// schema does not have: the apiserver drops them (with an "unknown field"
// warning). The project's CRDs model the newest schemas and keep them.
var knownPruned = map[string][]string{
	"argocd-v2.14.21": {
		".spec.syncPolicy.retry.refresh",
		".spec.syncWindows[*].andOperator",
		".spec.syncWindows[*].description",
		".spec.syncWindows[*].syncOverrun",
	},
}

// roundTrip creates a sample (its status through the status subresource when
// there is one) and reads it back. Every field must be kept, except the ones
// knownPruned lists for the set, whose patterns it returns; those, and only
// those, must be reported as unknown fields.
func roundTrip(t *testing.T, c *testcluster.Cluster, set testcluster.CRDSet, s sample, ns string) (map[string]any, []string) {
	gvk := s.obj.GroupVersionKind()
	crd, err := set.CRD(gvk)
	if err != nil {
		t.Fatal(err)
	}
	if crd == nil {
		t.Fatalf("CRD set %s does not serve %s, which sample %s is", set.Name, gvk, s.id())
	}
	warn := &warnings{}
	res := client(t, c, warn).Resource(gvr(crd, gvk.Version)).Namespace(ns)
	ctx := context.Background()
	obj := s.obj.DeepCopy()
	obj.SetNamespace(ns)
	created, err := res.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s: %v", s.id(), err)
	}
	if status, ok := s.obj.Object["status"]; ok && hasStatusSubresource(crd, gvk.Version) {
		created.Object["status"] = runtime.DeepCopyJSONValue(status)
		if _, err := res.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("writing the status of %s: %v", s.id(), err)
		}
	}
	got, err := res.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var lost []string
	var unexpected []difference
	for _, d := range missing(comparable(s.obj.Object), comparable(got.Object)) {
		if strings.HasPrefix(d.text, "absent") && slices.Contains(knownPruned[set.Name], d.pattern()) {
			lost = append(lost, d.pattern())
		} else {
			unexpected = append(unexpected, d)
		}
	}
	if len(unexpected) > 0 {
		t.Errorf("%s lost or changed fields of %s:\n  %s", set.Name, s.id(), lines(unexpected))
	}
	var unknown []string
	for _, w := range warn.all() {
		if field, ok := unknownField(w); ok {
			unknown = append(unknown, field)
		}
	}
	slices.Sort(unknown)
	want := slices.Clone(lost)
	slices.Sort(want)
	if !slices.Equal(slices.Compact(unknown), slices.Compact(want)) {
		t.Errorf("%s reported unknown fields %q of %s, want %q", set.Name, unknown, s.id(), want)
	}
	return comparable(got.Object), lost
}

// unknownField reads the apiserver's pruning warning, `unknown field
// "spec.x[0].y"`, into a path pattern, .spec.x[*].y.
func unknownField(warning string) (string, bool) {
	field, ok := strings.CutPrefix(warning, `unknown field "`)
	if !ok {
		return "", false // e.g. advice on finalizer names, which upstream objects get too
	}
	field = strings.TrimSuffix(field, `"`)
	return (difference{path: "." + field}).pattern(), true
}

func gvr(crd *apiextensionsv1.CustomResourceDefinition, version string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: crd.Spec.Group, Version: version, Resource: crd.Spec.Names.Plural}
}

func hasStatusSubresource(crd *apiextensionsv1.CustomResourceDefinition, version string) bool {
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			return v.Subresources != nil && v.Subresources.Status != nil
		}
	}
	return false
}

// client is a dynamic client that records the apiserver's warnings (such as
// "unknown field", sent when a write loses fields to pruning).
func client(t *testing.T, c *testcluster.Cluster, warn *warnings) *dynamic.DynamicClient {
	cfg := c.Config()
	cfg.WarningHandler = warn
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}
