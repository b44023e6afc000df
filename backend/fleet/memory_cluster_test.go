package fleet

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// memoryRunSeconds is how long the status storm lasts at least: 30 s in CI
// (about 2,500 writes after the first 5 s, and on until 1,500 landed on a
// busy machine: a leak of a decoded object, a unit or a batch a change is
// megabytes above the bound), DRIFTDECK_MEMORY_SECONDS for the long run
// (3600: an hour).
func memoryRunSeconds(t *testing.T) int {
	v := os.Getenv("DRIFTDECK_MEMORY_SECONDS")
	if v == "" {
		return 30
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 10 {
		t.Fatalf("DRIFTDECK_MEMORY_SECONDS=%q: want a number of seconds, at least 10", v)
	}
	return n
}

// heapAfterGC is the live heap once the collector ran.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A controller rewrites the status of 200 Applications 100 times a second,
// while the model follows through its watches and the pump hands batches to
// a consumer that keeps them, as the workbench does: the heap after a
// collection stays within a bound of what it was once the storm began.
func TestClusterMemoryStaysBoundedUnderAHundredStatusChangesASecond(t *testing.T) {
	const units, perSecond = 200, 100
	// The storm lasts until this many writes landed after the warm-up: a
	// busy machine's apiserver answers fewer a second, and the bound is
	// about what many changes leave behind, not how fast they came.
	const minWrites = 1500
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	for i := 0; i < units; i++ {
		create(t, dyn, argocd.Applications, app(t, ns, fmt.Sprintf("app-%03d", i), `"automated":{}`, `"sync":{"status":"Synced"},"health":{"status":"Healthy"}`), false)
	}
	f := startFleet(t, c, ns)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var held atomic.Pointer[store.Batch] // the consumer keeps the latest batch, as a view does
	var batches atomic.Int64
	go f.Store.Pump(ctx, 150*time.Millisecond, 5*time.Second, func(b store.Batch) { held.Store(&b); batches.Add(1) })

	var written, failed atomic.Int64
	var wg sync.WaitGroup
	storm := func(stop <-chan struct{}) {
		tick := time.NewTicker(time.Second / perSecond)
		defer tick.Stop()
		jobs := make(chan int, perSecond)
		for w := 0; w < 16; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range jobs {
					phases := []string{"Running", "Succeeded", "Failed"}
					body := fmt.Sprintf(`{"status":{"sync":{"status":%q},"reconciledAt":%q,"operationState":{"phase":%q,"message":"attempt %d of the storm","startedAt":%q,"operation":{"sync":{}}}}}`,
						map[bool]string{true: "Synced", false: "OutOfSync"}[n%2 == 0], time.Now().UTC().Format(time.RFC3339), phases[n%3], n, time.Now().UTC().Format(time.RFC3339))
					_, err := dyn.Resource(argocd.Applications).Namespace(ns).Patch(ctx, fmt.Sprintf("app-%03d", n%units), types.MergePatchType, []byte(body), metav1.PatchOptions{})
					if err != nil {
						failed.Add(1)
						continue
					}
					written.Add(1)
				}
			}()
		}
		for n := 0; ; n++ {
			select {
			case <-stop:
				close(jobs)
				return
			case <-tick.C:
				select {
				case jobs <- n:
				default: // the writers fall behind: the rate drops, nothing piles up
				}
			}
		}
	}
	stop := make(chan struct{})
	go storm(stop)

	seconds := memoryRunSeconds(t)
	warm := min(10, seconds/6)
	time.Sleep(time.Duration(warm) * time.Second)
	start := heapAfterGC()
	peak, began, before := start, time.Now(), written.Load()
	for elapsed := warm; elapsed < 4*seconds && (elapsed < seconds || written.Load()-before < minWrites); {
		step := max(1, min(10, seconds-elapsed))
		time.Sleep(time.Duration(step) * time.Second)
		elapsed += step
		h := heapAfterGC()
		peak = max(peak, h)
		t.Logf("%4d s: heap after GC %.1f MB, %d status writes, %d batches", elapsed, float64(h)/(1<<20), written.Load(), batches.Load())
	}
	close(stop)
	wg.Wait()
	end := heapAfterGC()
	rate := float64(written.Load()-before) / time.Since(began).Seconds()
	stormed := written.Load() - before
	t.Logf("%.0f s at %.0f status changes a second (%d writes, %d failed): heap after GC %.1f MB at the start, %.1f MB at the end, %.1f MB at most",
		time.Since(began).Seconds(), rate, written.Load(), failed.Load(), float64(start)/(1<<20), float64(end)/(1<<20), float64(peak)/(1<<20))
	if stormed < minWrites {
		t.Errorf("only %d status changes reached the apiserver in %.0f s (%.0f a second), want %d", stormed, time.Since(began).Seconds(), rate, minWrites)
	}
	// What the run may keep beyond the start: the runtime's and client-go's
	// buffers settle; a leak of a unit, a batch or an event per change
	// (hundreds of thousands of them) is far above it.
	if bound := start + start/4 + 2<<20; peak > bound {
		t.Errorf("the heap after GC grew from %.1f MB to %.1f MB, beyond %.1f MB", float64(start)/(1<<20), float64(peak)/(1<<20), float64(bound)/(1<<20))
	}
	if b := held.Load(); b == nil || len(b.Units) != units {
		t.Errorf("the consumer's last batch does not hold the %d units", units)
	}
}
