package kube

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// discoveryParallel bounds the group-versions asked about at once: each is
// one round trip, and asked one after the other a cluster 2 s away took
// half a minute to discover a dozen of them.
const discoveryParallel = 8

// Discover records which of the given resources the cluster serves. A group
// that does not exist is normal (no Argo CD here); any other error is returned.
func (c *Cluster) Discover(ctx context.Context, wanted []schema.GroupVersionResource) error {
	byGV := map[schema.GroupVersion][]schema.GroupVersionResource{}
	for _, r := range wanted {
		byGV[r.GroupVersion()] = append(byGV[r.GroupVersion()], r)
	}
	var (
		mu        sync.Mutex
		errs      []error
		wg        sync.WaitGroup
		slots     = make(chan struct{}, discoveryParallel)
		resources = map[schema.GroupVersionResource]bool{}
	)
	for gv, rs := range byGV {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			served, err := c.servedIn(ctx, gv)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			for _, r := range rs {
				if served[r.Resource] {
					resources[r] = true
				}
			}
		})
	}
	wg.Wait()
	c.Resources = resources
	if len(errs) > 0 {
		return errs[0] // a cluster that cannot be reached fails every one alike
	}
	return nil
}

// servedIn lists the resources the cluster serves in one group-version;
// none when the group-version does not exist.
func (c *Cluster) servedIn(ctx context.Context, gv schema.GroupVersion) (map[string]bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	list, err := c.Kube.Discovery().ServerResourcesForGroupVersion(gv.String())
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("context %q: discovering %s: %w", c.Context, gv, err)
	}
	served := map[string]bool{}
	for _, ar := range list.APIResources {
		served[ar.Name] = true
	}
	return served, nil
}

// Has reports whether discovery found the resource.
func (c *Cluster) Has(r schema.GroupVersionResource) bool { return c.Resources[r] }
