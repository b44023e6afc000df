package actions

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/kube"
)

var crds = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// schemaCache remembers, per context, whether an installed CRD's schema knows a
// field. An older schema silently prunes fields it does not know (Argo CD
// before 3.1 drops spec.syncPolicy.automated.enabled), so a write must be
// shaped by what is installed, not by what driftdeck was built against.
type schemaCache struct {
	mu      sync.Mutex
	answers map[schemaKey]bool
}

type schemaKey struct{ context, crd, version, path string }

// knows reports whether the CRD's schema for version has the field at path
// (a chain of property names). ok is false when the CRD cannot be read.
func (s *schemaCache) knows(ctx context.Context, c *kube.Cluster, crd, version string, path ...string) (known, ok bool) {
	k := schemaKey{c.Context, crd, version, joinPath(path)}
	s.mu.Lock()
	if v, hit := s.answers[k]; hit {
		s.mu.Unlock()
		return v, true
	}
	s.mu.Unlock()
	obj, err := c.Dynamic.Resource(crds).Get(ctx, crd, metav1.GetOptions{})
	if err != nil {
		return false, false
	}
	known, ok = schemaHas(obj, version, path)
	if ok {
		s.mu.Lock()
		if s.answers == nil {
			s.answers = map[schemaKey]bool{}
		}
		s.answers[k] = known
		s.mu.Unlock()
	}
	return known, ok
}

func schemaHas(crd *unstructured.Unstructured, version string, path []string) (known, ok bool) {
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		vm, isMap := v.(map[string]any)
		if !isMap || vm["name"] != version {
			continue
		}
		node := lookupMap(vm, "schema", "openAPIV3Schema")
		if node == nil {
			return false, false
		}
		for _, p := range path {
			if pu, _ := node["x-kubernetes-preserve-unknown-fields"].(bool); pu && lookupMap(node, "properties") == nil {
				return true, true // an open object keeps every field
			}
			node = lookupMap(node, "properties", p)
			if node == nil {
				return false, true
			}
		}
		return true, true
	}
	return false, false
}

func joinPath(p []string) string {
	out := ""
	for _, s := range p {
		out += "." + s
	}
	return out
}
