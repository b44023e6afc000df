package cli

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/store"
)

// GCRestAfter is how long the model goes without growing, and the user
// without typing, before the collector rests.
const GCRestAfter = 30 * time.Second

// GCRest spares a model that does not grow the runtime's forced
// collections. Go collects every two minutes whatever the heap did; with
// twenty clusters (200 MB of units) each such collection marks the whole
// model, about 230 ms of a core, a third of the workbench's idle CPU. When
// the model has not grown for a while, the collector rests: GOGC off and a
// memory limit where GOGC would have collected (what is not heap objects,
// plus the live heap grown by GOGC's share), set again after every
// collection, so that garbage is still collected at the same size. A batch
// that grows the model puts GOGC back; one that replaces units (a status
// changed, a stuck rule's threshold crossed) leaves the rest as it is, its
// garbage collected at the limit. A key typed ends the rest too: at 70,500
// units with status changes streaming in, keys typed while it rested
// waited longer at p99 (37.6-48.8 ms in two runs) than with GOGC (28.5 ms),
// and the rest is for a screen nobody uses. A GOGC or GOMEMLIMIT the user
// set wins: no rest.
type GCRest struct {
	after   time.Duration
	mu      sync.Mutex
	timer   *time.Timer
	resting bool
	stopped bool
	rests   int // which rest a collection's callback belongs to
	percent int // GOGC while the model grows
	units   int // the model's size in the last batch that carried it
}

// RestGCWhileTheModelHolds starts the rest's clock. It returns nil, which
// never rests, when the user set GOGC or GOMEMLIMIT.
func RestGCWhileTheModelHolds(after time.Duration) *GCRest {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	r := &GCRest{after: after}
	r.timer = time.AfterFunc(after, r.rest)
	return r
}

// Watching passes each batch on to send, and tells the rest of it first.
func (r *GCRest) Watching(send func(store.Batch)) func(store.Batch) {
	return func(b store.Batch) {
		r.saw(b)
		send(b)
	}
}

// Typing is a Bubble Tea filter (tea.WithFilter) that tells the rest of
// each key typed.
func (r *GCRest) Typing(_ tea.Model, msg tea.Msg) tea.Msg {
	if _, key := msg.(tea.KeyPressMsg); key && r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.wakeAndWait()
	}
	return msg
}

// saw tells the rest of a batch: one with more units than the model had
// (the start, a context connected, objects created) ends the rest and starts
// its clock again. Replacing units does not grow the live heap, and at
// twenty clusters the two idle minutes of the bench held 16 batches (rows
// crossing their stuck thresholds): while each batch with units ended the
// rest, those minutes still held a forced collection.
func (r *GCRest) saw(b store.Batch) {
	if r == nil || b.Units == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	grew := len(b.Units) > r.units
	r.units = len(b.Units)
	if grew {
		r.wakeAndWait()
	}
}

// wakeAndWait ends the rest and starts its clock again.
func (r *GCRest) wakeAndWait() {
	r.wake()
	if !r.stopped {
		r.timer.Reset(r.after)
	}
}

// Stop ends the rest for good, GOGC back.
func (r *GCRest) Stop() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	r.timer.Stop()
	r.wake()
}

func (r *GCRest) wake() {
	if r.resting {
		r.resting = false
		debug.SetGCPercent(r.percent)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

func (r *GCRest) rest() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.resting || r.stopped {
		return
	}
	r.percent = int(readMetrics(gogcPercent)[0].Value.Uint64())
	if r.percent < 0 { // off already
		return
	}
	r.resting = true
	r.rests++
	debug.SetMemoryLimit(restLimit(r.percent)) // the limit first: never a moment with no trigger
	debug.SetGCPercent(-1)
	r.afterNextCollection(r.rests)
}

// afterNextCollection sets the limit again once the next collection ends,
// from the heap it left, for as long as this rest lasts.
func (r *GCRest) afterNextCollection(rest int) {
	runtime.AddCleanup(&sentinel{}, func(rest int) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.resting && r.rests == rest {
			debug.SetMemoryLimit(restLimit(r.percent))
			r.afterNextCollection(rest)
		}
	}, rest)
}

// sentinel is collected by the first collection after it is made; it holds
// a pointer so that it is not batched with other tiny objects.
type sentinel struct{ _ *byte }

const (
	gogcPercent  = "/gc/gogc:percent"
	liveHeap     = "/gc/heap/live:bytes"
	totalMemory  = "/memory/classes/total:bytes"
	releasedHeap = "/memory/classes/heap/released:bytes"
	heapObjects  = "/memory/classes/heap/objects:bytes"
)

// restLimit is the memory limit at which GOGC=percent would collect next:
// the memory the limit counts (all the runtime holds but what it gave
// back), less the heap's objects, plus the live heap grown by percent.
func restLimit(percent int) int64 {
	s := readMetrics(liveHeap, totalMemory, releasedHeap, heapObjects)
	live, total, released, objects := s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64(), s[3].Value.Uint64()
	return int64(total-released-objects) + int64(live)*int64(100+percent)/100
}

func readMetrics(names ...string) []metrics.Sample {
	s := make([]metrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	metrics.Read(s)
	return s
}
