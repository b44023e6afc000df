package main

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

// churn streams status changes through the API server into random units,
// Applications as Argo CD's controller writes them after refreshes and
// Kustomizations, HelmReleases and Terraforms as their controllers write
// them at a reconcile, each kind in its share of the fleet: targeted merge
// patches, perSecond of them, until stopped, at most workers at a time
// (a patch to a cluster far away is in flight for its round trip).
// churnWorkers is how many patches are in flight at most on a near cluster.
const churnWorkers = 8

type churn struct {
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	start   time.Time
	applied atomic.Int64
	failed  atomic.Int64
}

func startChurn(cfg *rest.Config, size fleetSize, perSecond, workers int) (*churn, error) {
	rc, err := newFastClient(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &churn{cancel: cancel, start: time.Now()}
	work := make(chan int, perSecond)
	for range workers {
		c.wg.Go(func() {
			for n := range work {
				path, patch := churnTarget(size, n, time.Now())
				err := rc.Patch(types.MergePatchType).AbsPath(path).Body(patch).Do(ctx).Error()
				switch {
				case err == nil:
					c.applied.Add(1)
				case ctx.Err() == nil:
					c.failed.Add(1)
				}
			}
		})
	}
	c.wg.Go(func() {
		defer close(work)
		tick := time.NewTicker(time.Second / time.Duration(perSecond))
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			select {
			case work <- n:
			default: // the API server is behind: drop rather than burst later
			}
		}
	})
	return c, nil
}

// churnTarget picks a random unit of the fleet, each kind in its share, and
// the status patch its controller would write.
func churnTarget(size fleetSize, n int, now time.Time) (path string, patch []byte) {
	i := rand.IntN(size.apps + size.kustomizations + size.helmReleases + size.terraforms)
	if i < size.apps { // Applications have no status subresource
		return "/apis/argoproj.io/v1alpha1/namespaces/" + fleetgen.AppNamespaceOf(i) + "/applications/" + fleetgen.AppName(i),
			fleetgen.ChurnPatch(n, now)
	}
	var obj map[string]any
	collection := kustomizationsPath
	switch i -= size.apps; {
	case i < size.kustomizations:
		obj, _ = fleetgen.Kustomization(i, now)
	case i < size.kustomizations+size.helmReleases:
		obj, _ = fleetgen.HelmRelease(i-size.kustomizations, now)
		collection = helmReleasesPath
	default:
		obj, _ = fleetgen.Terraform(i-size.kustomizations-size.helmReleases, now)
		collection = terraformsPath
	}
	return fleetgen.ObjectPath(collection, obj) + "/status", fleetgen.FluxChurnPatch(n, now)
}

// stop ends the stream and reports how many changes were applied per second.
func (c *churn) stop() (applied, failed int64, rate float64) {
	c.cancel()
	c.wg.Wait()
	applied, failed = c.applied.Load(), c.failed.Load()
	return applied, failed, float64(applied) / time.Since(c.start).Seconds()
}

// churnGroup is the streams into several clusters at once.
type churnGroup []*churn

// stop ends every stream and sums what they applied.
func (g churnGroup) stop() (applied, failed int64, rate float64) {
	for _, c := range g {
		a, f, r := c.stop()
		applied, failed, rate = applied+a, failed+f, rate+r
	}
	return applied, failed, rate
}
