// Package leakcheck catches what repeated work leaves behind: it counts the
// process's goroutines and open file descriptors before and after many
// cycles of the work (opening and closing a screen, connecting a context),
// so that a leak of one per cycle shows as a growth of hundreds.
package leakcheck

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// Counts is what the process holds at one moment.
type Counts struct {
	Goroutines int
	// FDs is the number of open file descriptors, -1 where /proc is absent.
	FDs int
}

// Now counts the process's goroutines and open file descriptors.
func Now() Counts {
	c := Counts{Goroutines: runtime.NumGoroutine(), FDs: -1}
	if entries, err := os.ReadDir("/proc/self/fd"); err == nil {
		c.FDs = len(entries) - 1 // ReadDir's own descriptor
	}
	return c
}

// Result is a run of Cycles: the counts once warmed up, and after the
// cycles once what they started had time to end.
type Result struct {
	Cycles        int
	Before, After Counts
}

// Grown is the larger of the two growths.
func (r Result) Grown() int {
	return max(r.After.Goroutines-r.Before.Goroutines, r.After.FDs-r.Before.FDs)
}

// Warmup is how many cycles run before the first count: the first ones
// start what lives on by design (a connection pool, a cache's goroutine).
const Warmup = 5

// settle is how long the goroutines and connections of the last cycles get
// to end before they count as leaked.
var settle = 15 * time.Second

// steady counts once the counts stopped falling: the warm-up's last
// goroutines and connections have ended.
func steady() Counts {
	c := Now()
	for deadline := time.Now().Add(settle); time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		runtime.GC()
		next := Now()
		if next == c {
			break
		}
		c = next
	}
	return c
}

// Cycles runs cycle Warmup+n times and fails t when the goroutines or the
// file descriptors grew by more than tolerance over the n counted ones,
// listing the goroutines still running. A tolerance well below n still
// catches a leak of one per cycle.
func Cycles(t testing.TB, n, tolerance int, cycle func(i int)) Result {
	t.Helper()
	for i := 0; i < Warmup; i++ {
		cycle(i)
	}
	r := Result{Cycles: n, Before: steady()}
	for i := 0; i < n; i++ {
		cycle(Warmup + i)
		if t.Failed() {
			return r
		}
	}
	deadline := time.Now().Add(settle)
	for {
		runtime.GC() // finalizers close what nobody closed
		r.After = Now()
		if r.Grown() <= tolerance || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d cycles: goroutines %d -> %d, open file descriptors %d -> %d",
		n, r.Before.Goroutines, r.After.Goroutines, r.Before.FDs, r.After.FDs)
	if r.Grown() > tolerance {
		var b strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Errorf("grew by more than %d over %d cycles (goroutines %d -> %d, file descriptors %d -> %d); running now:\n%s",
			tolerance, n, r.Before.Goroutines, r.After.Goroutines, r.Before.FDs, r.After.FDs, b.String())
	}
	return r
}
