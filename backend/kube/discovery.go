package kube

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Discover records which of the given resources the cluster serves. A group
// that does not exist is normal (no Argo CD here); any other error is returned.
// Every group-version is asked about at once (a dozen small requests on one
// connection): each is a round trip, and on a cluster 2 s away a second
// wave of them was 4 s more before the watches knew what is served.
func (c *Cluster) Discover(ctx context.Context, wanted []schema.GroupVersionResource) error {
	byGV := map[schema.GroupVersion][]schema.GroupVersionResource{}
	for _, r := range wanted {
		byGV[r.GroupVersion()] = append(byGV[r.GroupVersion()], r)
	}
	var (
		mu        sync.Mutex
		errs      = map[schema.GroupVersion]error{}
		wg        sync.WaitGroup
		resources = map[schema.GroupVersionResource]bool{}
	)
	for gv, rs := range byGV {
		wg.Go(func() {
			served, err := c.servedIn(ctx, gv)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs[gv] = err
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
	c.served.Store(&resources)
	// A cluster that cannot be reached fails every group-version alike:
	// name the same one each time, so a retried context's message holds still.
	failed := slices.SortedFunc(maps.Keys(errs), func(a, b schema.GroupVersion) int { return strings.Compare(a.String(), b.String()) })
	if len(failed) > 0 {
		return errs[failed[0]]
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
func (c *Cluster) Has(r schema.GroupVersionResource) bool {
	served := c.served.Load()
	return served != nil && (*served)[r]
}
