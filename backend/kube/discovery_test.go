package kube

import (
	"context"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// A context retried while nothing answers shows its discovery error: the
// same words on every try, not whichever group-version failed first.
func TestDiscoveryOfAnUnreachableClusterNamesTheSameGroupVersionEachTime(t *testing.T) {
	c, err := NewCluster("gone", &rest.Config{Host: testcluster.RefusedURL(t)}, "default")
	if err != nil {
		t.Fatal(err)
	}
	wanted := []schema.GroupVersionResource{
		{Group: "pulumi.com", Version: "v1", Resource: "stacks"},
		{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"},
		{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"},
		{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"},
	}
	var first string
	for i := range 5 {
		err := c.Discover(context.Background(), wanted)
		if err == nil {
			t.Fatal("discovery of a cluster nothing answers succeeded")
		}
		if !strings.Contains(err.Error(), "discovering argoproj.io/v1alpha1") {
			t.Errorf("try %d: %v, want the first group-version by name", i, err)
		}
		if i == 0 {
			first = err.Error()
		} else if err.Error() != first {
			t.Errorf("try %d said %q, the first %q", i, err, first)
		}
	}
}

// A Cluster shared by two fleets (two agents in one process) is rediscovered
// by one while the other's watches ask what is served: run with -race.
func TestDiscoveryWhileAnotherFleetAsksWhatIsServed(t *testing.T) {
	clients := fake.NewClientset()
	clients.Discovery().(*fakediscovery.FakeDiscovery).Resources = []*metav1.APIResourceList{
		{GroupVersion: "argoproj.io/v1alpha1", APIResources: []metav1.APIResource{{Name: "applications"}}},
	}
	apps := schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	stacks := schema.GroupVersionResource{Group: "pulumi.com", Version: "v1", Resource: "stacks"}
	c := &Cluster{Context: "shared", Kube: clients}
	if c.Has(apps) {
		t.Fatal("served before discovery")
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range 50 {
				if err := c.Discover(context.Background(), []schema.GroupVersionResource{apps, stacks}); err != nil {
					t.Error(err)
					return
				}
				c.Has(apps)
			}
		})
	}
	wg.Wait()
	if !c.Has(apps) || c.Has(stacks) {
		t.Errorf("after discovery: applications served %v, stacks served %v; want true, false", c.Has(apps), c.Has(stacks))
	}
}
