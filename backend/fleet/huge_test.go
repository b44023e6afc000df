package fleet

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/model"
)

// hugeSize is how large the objects are: a 10 MB condition message,
// 100,000 entries in each list (59 MB of JSON); a fifth of that under the
// race detector, as CI runs it (12 MB, still 190 times the heap a unit may
// keep): at full size there each of the five took 17-39 s and gigabytes of
// the detector's shadow memory, beside the other packages' tests.
func hugeSize() (message, entries int) {
	if raceDetector {
		return 2 << 20, 20_000
	}
	return 10 << 20, 100_000
}

// hugeBody is an object, without apiVersion and kind, with a huge condition
// message and as many entries in each list its status may carry (and a
// tenth of that in its history). Built once: marshalling it takes seconds,
// many under the race detector.
func hugeBody() []byte {
	size, n := hugeSize()
	msg := strings.Repeat("x", size)
	entries := make([]any, n)
	for i := range entries {
		entries[i] = map[string]any{"kind": "ConfigMap", "name": fmt.Sprintf("cm-%d", i), "namespace": "big",
			"status": "OutOfSync", "health": map[string]any{"status": "Healthy"}, "id": fmt.Sprintf("big_cm-%d__ConfigMap", i), "v": "v1"}
	}
	history := make([]any, n/10)
	for i := range history {
		history[i] = map[string]any{"id": i, "revision": fmt.Sprintf("%040d", i), "deployedAt": "2026-11-29T10:00:00Z"}
	}
	cond := []any{map[string]any{"type": "Ready", "status": "False", "reason": "Failed", "message": msg, "lastTransitionTime": "2026-11-29T10:00:00Z"}}
	obj := map[string]any{
		"metadata": map[string]any{"name": "big", "namespace": "big", "resourceVersion": "1", "generation": 1},
		"spec":     map[string]any{"stack": "o/p/s", "interval": "1m", "path": "./", "sourceRef": map[string]any{"kind": "GitRepository", "name": "r"}},
		"status": map[string]any{"conditions": cond, "resources": entries, "inventory": map[string]any{"entries": entries},
			"operationState": map[string]any{"phase": "Failed", "message": msg, "startedAt": "2026-11-29T10:00:00Z", "operation": map[string]any{"sync": map[string]any{}}},
			"sync":           map[string]any{"status": "OutOfSync"}, "health": map[string]any{"status": "Degraded", "message": msg},
			"history": history, "lastHandledReconcileAt": msg[:100]},
	}
	b, _ := json.Marshal(obj)
	return b
}

// huge is body as an object of the engine's kind: a fresh copy.
func huge(body []byte, apiVersion, kind string) []byte {
	head := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,`, apiVersion, kind)
	return append([]byte(head), body[1:]...)
}

// keptLimit is the most heap one unit of a hostile object may keep: a few
// clipped texts (model.TextLimit each) and capped histories.
const keptLimit = 64 << 10

// retained runs build and returns how many bytes of heap are still in use
// after it, once the collector ran: what build's results keep.
func retained(build func()) int64 {
	var before, after runtime.MemStats
	collect()
	runtime.ReadMemStats(&before)
	build()
	collect()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// collect runs the collector twice: what a sync.Pool holds (json.Marshal's
// buffers, tens of megabytes here) is freed only by the second collection
// after it was put back, and under the race detector whether it was put
// back at all is random.
func collect() {
	runtime.GC()
	runtime.GC()
}

// Objects with a 10 MB status and 100,000 resources (a fifth of that under
// -race, as CI runs it) go through every engine's decoder and adapter
// without a panic, and the unit made of each keeps a bounded few kilobytes.
// The figures are logged for docs/reliability.md.
func TestHugeObjectsThroughEveryAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("builds objects of tens of megabytes")
	}
	type adapter struct {
		engine           model.Engine
		apiVersion, kind string
		decode           func([]byte) (map[string]any, error)
		convert          func(string, map[string]any) *model.Unit
	}
	whole := func(b []byte) (map[string]any, error) {
		var m map[string]any
		return m, json.Unmarshal(b, &m)
	}
	var adapters []adapter
	for _, d := range engines.All() {
		if d.Engine == model.EngineApplicationSet {
			continue
		}
		decode := d.Decode
		if decode == nil {
			decode = whole
		}
		adapters = append(adapters, adapter{d.Engine, d.Versions[0].GroupVersion().String(), d.Kind, decode, d.Convert})
	}
	body := hugeBody()
	for _, a := range adapters {
		t.Run(string(a.engine), func(t *testing.T) {
			var (
				m0, m1 runtime.MemStats
				size   int
				took   time.Duration
				u      *model.Unit
			)
			kept := retained(func() {
				data := huge(body, a.apiVersion, a.kind)
				size = len(data)
				runtime.ReadMemStats(&m0)
				start := time.Now()
				obj, err := a.decode(data)
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				u = model.Bounded(a.convert("c", obj))
				if u == nil {
					t.Fatal("no unit")
				}
				model.Derive(u, time.Now(), model.DefaultThresholds)
				took = time.Since(start)
				runtime.ReadMemStats(&m1)
			})
			t.Logf("%s: %.1f MB object decoded and converted in %v, %.1f MB allocated; the unit keeps %.1f KB of heap, its reason %d bytes",
				a.engine, float64(size)/(1<<20), took.Round(time.Millisecond), float64(m1.TotalAlloc-m0.TotalAlloc)/(1<<20), float64(kept)/1024, len(u.Reason()))
			// A hang guard, not a speed goal; under the race detector the
			// time says nothing of a user's.
			if !raceDetector && took > 30*time.Second {
				t.Errorf("took %v", took)
			}
			// Unbounded, the unit kept the whole message (and its reason a
			// piece of it, which pins the whole string).
			if kept > keptLimit {
				t.Errorf("the unit keeps %d bytes of heap, want at most %d", kept, keptLimit)
			}
			if r := u.Reason(); a.engine != model.EnginePulumi && !strings.Contains(r, "bytes more)") {
				t.Errorf("the reason does not say it was cut: ...%q", r[max(0, len(r)-60):])
			}
		})
	}
}
