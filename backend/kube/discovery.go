package kube

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Discover records which of the given resources the cluster serves. A group
// that does not exist is normal (no Argo CD here); any other error is returned.
func (c *Cluster) Discover(ctx context.Context, wanted []schema.GroupVersionResource) error {
	c.Resources = map[schema.GroupVersionResource]bool{}
	byGV := map[schema.GroupVersion][]schema.GroupVersionResource{}
	for _, r := range wanted {
		byGV[r.GroupVersion()] = append(byGV[r.GroupVersion()], r)
	}
	for gv, rs := range byGV {
		if err := ctx.Err(); err != nil {
			return err
		}
		list, err := c.Kube.Discovery().ServerResourcesForGroupVersion(gv.String())
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("context %q: discovering %s: %w", c.Context, gv, err)
		}
		served := map[string]bool{}
		for _, ar := range list.APIResources {
			served[ar.Name] = true
		}
		for _, r := range rs {
			if served[r.Resource] {
				c.Resources[r] = true
			}
		}
	}
	return nil
}

// Has reports whether discovery found the resource.
func (c *Cluster) Has(r schema.GroupVersionResource) bool { return c.Resources[r] }
