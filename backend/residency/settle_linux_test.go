//go:build linux

package residency

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// While the first lists are awaited the executable's pages are released
// again and again (what runs meanwhile touches them back), and Settle ends
// settleFor after they are in, or at once with its context.
func TestSettleReleasesWhileTheFirstListsComeInAndEnds(t *testing.T) {
	var asked atomic.Int32
	in := make(chan struct{})
	done := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(done)
		Settle(context.Background(), func() bool {
			select {
			case <-in:
				return true
			default:
				asked.Add(1)
				return false
			}
		})
	}()
	// Three releases' worth of waiting, the pages touched back meanwhile.
	time.Sleep(3 * releaseEvery)
	touched := rssFile(t)
	close(in)
	select {
	case <-done:
	case <-time.After(settleFor + 10*time.Second):
		t.Fatal("Settle did not end after the first lists were in")
	}
	if n := asked.Load(); n < 2 {
		t.Errorf("the first lists were asked about %d times while awaited: the pages were released %d times at most", n, n)
	}
	if took := time.Since(start); took < 3*releaseEvery+settleFor {
		t.Errorf("Settle ended %s after it started: before the %s given to the first screens", took, settleFor)
	}
	t.Logf("file-backed resident memory while awaiting: %d kB, after: %d kB", touched, rssFile(t))

	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan struct{})
	go func() { Settle(ctx, func() bool { return false }); close(ended) }()
	cancel()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("Settle kept releasing after its context ended")
	}
}
