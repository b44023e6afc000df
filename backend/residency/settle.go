package residency

import (
	"context"
	"runtime/debug"
	"time"
)

// releaseEvery is how often starting's pages are released while it goes
// on: each release costs the pages still in use a minor fault.
const releaseEvery = 300 * time.Millisecond

// waitAtMost bounds the releases while the first lists are awaited.
const waitAtMost = time.Minute

// settleFor is how long after the first lists the first screens (or the
// agent's first pass) are given before the heap's free pages go back.
const settleFor = 2 * time.Second

// Settle keeps what starting touches from adding up in the resident set:
// the executable's read-only pages are released at once and every
// releaseEvery until firstListsIn holds (waitAtMost at most) and for
// settleFor after, so that
// package initialisation, discovery and each list's decoding do not all
// count at the peak together; then the heap's free pages are returned and
// the pages released a last time (ADR 0018).
func Settle(ctx context.Context, firstListsIn func() bool) {
	tick := time.NewTicker(releaseEvery)
	defer tick.Stop()
	start, in := time.Now(), time.Time{}
	for in.IsZero() || time.Since(in) < settleFor {
		_ = ReleaseStartupPages() // only a figure depends on it
		if in.IsZero() && (firstListsIn() || time.Since(start) > waitAtMost) {
			in = time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
	debug.FreeOSMemory()
	_ = ReleaseStartupPages()
}
