package logs

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkBufferFlood adds a million 120-byte lines to a default buffer and
// reports the time per line and the heap it keeps at the end: the bound is
// the budget (4 MiB) plus the ring's slots, whatever the log's length.
func BenchmarkBufferFlood(b *testing.B) {
	lines := make([]Line, 1024)
	for i := range lines {
		lines[i] = Line{Text: fmt.Sprintf("%06d %s", i, strings.Repeat("x", 113))}
	}
	const n = 1_000_000
	var kept uint64
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		buf := NewBuffer(0)
		for i := range n {
			l := lines[i%len(lines)]
			l.Text = string([]byte(l.Text)) // each line its own string, as a stream makes them
			buf.Add(l)
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		kept = after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
		runtime.KeepAlive(buf)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/line")
	b.ReportMetric(float64(kept)/(1<<20), "MiB-kept")
}
