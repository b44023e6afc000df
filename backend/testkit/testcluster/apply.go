package testcluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// Apply applies the objects of manifest files, in order, as an
// administrator would with kubectl apply --server-side: any kind the
// cluster serves, a CRD waited for until Established before the next
// object. Applying again changes nothing.
func (c *Cluster) Apply(t testing.TB, files ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), crdTimeout)
	defer cancel()
	if err := c.apply(ctx, files); err != nil {
		t.Fatal(err)
	}
}

func (c *Cluster) apply(ctx context.Context, files []string) error {
	dyn, err := dynamic.NewForConfig(c.cfg)
	if err != nil {
		return err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(c.cfg)
	if err != nil {
		return err
	}
	ext, err := apiextensions.NewForConfig(c.cfg)
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	for _, f := range files {
		objs, err := readManifests(f)
		if err != nil {
			return err
		}
		for _, o := range objs {
			gvk := o.GroupVersionKind()
			m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				return fmt.Errorf("%s: %s %s: %w", f, gvk.Kind, o.GetName(), err)
			}
			body, err := json.Marshal(o.Object)
			if err != nil {
				return err
			}
			r := dyn.Resource(m.Resource)
			var ri dynamic.ResourceInterface = r
			if m.Scope.Name() == "namespace" {
				ri = r.Namespace(o.GetNamespace())
			}
			force := true
			if _, err := ri.Patch(ctx, o.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "testcluster", Force: &force}); err != nil {
				return fmt.Errorf("%s: applying %s %s: %w", f, gvk.Kind, o.GetName(), err)
			}
			if gvk.Kind == "CustomResourceDefinition" {
				if err := waitEstablished(ctx, ext, o.GetName()); err != nil {
					return err
				}
				mapper.Reset()
			}
		}
	}
	return nil
}

// readManifests reads the objects of a YAML or JSON file of documents.
func readManifests(path string) ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if obj != nil {
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
}
