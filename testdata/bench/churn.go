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

// churn streams status changes into random Applications through the API
// server, as Argo CD's controller does after refreshes: targeted merge
// patches, perSecond of them, until stopped.
type churn struct {
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	start   time.Time
	applied atomic.Int64
	failed  atomic.Int64
}

func startChurn(cfg *rest.Config, apps int, perSecond int) (*churn, error) {
	rc, err := newFastClient(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &churn{cancel: cancel, start: time.Now()}
	work := make(chan int, perSecond)
	for range 8 {
		c.wg.Go(func() {
			for n := range work {
				i := rand.IntN(apps)
				path := "/apis/argoproj.io/v1alpha1/namespaces/" + fleetgen.AppNamespaceOf(i) + "/applications/" + fleetgen.AppName(i)
				err := rc.Patch(types.MergePatchType).AbsPath(path).Body(fleetgen.ChurnPatch(n, time.Now())).Do(ctx).Error()
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

// stop ends the stream and reports how many changes were applied per second.
func (c *churn) stop() (applied, failed int64, rate float64) {
	c.cancel()
	c.wg.Wait()
	applied, failed = c.applied.Load(), c.failed.Load()
	return applied, failed, float64(applied) / time.Since(c.start).Seconds()
}
