package sim_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

func TestMain(m *testing.M) { testcluster.Main(m, testcluster.Options{}) }

func clusterClient(t *testing.T, c *testcluster.Cluster) dynamic.Interface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// runOnCluster runs scenarios in parallel, each in a namespace of its own.
func runOnCluster(t *testing.T, c *testcluster.Cluster, scenarios map[string]func(*testing.T, dynamic.Interface, string)) {
	dyn := clusterClient(t, c)
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			scenario(t, dyn, c.Namespace(t))
		})
	}
}

// The controllers' every transition, against a real kube-apiserver with the
// project's CRDs: the writes are accepted, survive schema pruning, and
// status subresources behave as the controllers expect.
func TestClusterArgoController(t *testing.T) {
	runOnCluster(t, testcluster.Shared(t), argoScenarios)
}

func TestClusterPulumiOperator(t *testing.T) {
	runOnCluster(t, testcluster.Shared(t), pulumiScenarios)
}

// The status writer and driftdeck-style preconditioned patches, concurrently
// on one object of a real apiserver: no write is lost on either side.
func TestClusterStatusWriterLosesNothing(t *testing.T) {
	c := testcluster.Shared(t)
	statusWriterLosesNothing(t, clusterClient(t, c), c.Namespace(t))
}

// The same transitions against every upstream release's CRDs that serve the
// kinds (both Argo CD generations; the Pulumi operator v2).
func TestClusterControllersOnUpstreamCRDs(t *testing.T) {
	argoSets := testcluster.UpstreamCRDSetsServing(t, schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Application"})
	pulumiSets := testcluster.UpstreamCRDSetsServing(t, schema.GroupVersionKind{Group: "auto.pulumi.com", Version: "v1alpha1", Kind: "Update"})
	if len(argoSets) == 0 || len(pulumiSets) == 0 {
		t.Skip("no upstream CRD sets (../shared/crds) in this checkout")
	}
	c := testcluster.Start(t, testcluster.Options{NoCRDs: true})
	for _, set := range pulumiSets {
		t.Run(set.Name, func(t *testing.T) {
			c.InstallCRDs(t, set)
			runOnCluster(t, c, pulumiScenarios)
		})
	}
	for _, set := range argoSets {
		t.Run(set.Name, func(t *testing.T) {
			c.InstallCRDs(t, set)
			runOnCluster(t, c, argoScenarios)
			t.Run("status writer", func(t *testing.T) {
				// Needs Stacks too: the pulumi set stays installed.
				statusWriterLosesNothing(t, clusterClient(t, c), c.Namespace(t))
			})
		})
	}
}
