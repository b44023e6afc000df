package kube

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/testcluster"
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
