package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

// gcSettings reads GOGC (-1 when off) and the memory limit.
func gcSettings() (percent int, limit int64) {
	s := readMetrics(gogcPercent, "/gc/gomemlimit:bytes")
	return int(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

// heldMemory is what the memory limit counts.
func heldMemory() int64 {
	s := readMetrics(totalMemory, releasedHeap)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10s: %s", what)
		}
	}
}

// collections counts the collections the runtime started on its own.
func collections() uint64 {
	return readMetrics("/gc/cycles/automatic:gc-cycles")[0].Value.Uint64()
}

var kept [][]byte // what the test keeps live; package-level so the compiler keeps it

// While the model does not grow, its collector rests (GOGC off, a memory
// limit where GOGC=50 would have collected), yet garbage is collected as
// before: allocating many times the limit never holds much more than it,
// and a grown live heap moves the limit after the next collection. A batch
// that grows the model ends the rest, and so does a key typed; a batch that
// replaces its units, or carries the contexts' status alone, does not; the
// rest comes back when the model holds its size, and no key is typed.
func TestTheCollectorRestsWhileTheModelDoesNotGrow(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(50)
	beforeLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(before); debug.SetMemoryLimit(beforeLimit); kept = nil })

	runtime.GC() // nothing left of an earlier run's live heap
	r := RestGCWhileTheModelHolds(50 * time.Millisecond)
	defer r.Stop()
	resting := func() bool { p, _ := gcSettings(); return p < 0 }
	waitFor(t, "the collector rests", resting)
	_, limit := gcSettings()
	live := int64(readMetrics(liveHeap)[0].Value.Uint64())
	if limit < live*3/2 || limit > heldMemory()+live {
		t.Fatalf("resting with a memory limit of %d bytes, holding %d, %d of them live: want at least GOGC=50's goal, live*1.5", limit, heldMemory(), live)
	}

	// Garbage, 20 times the limit in 64 KB pieces: collected on the way.
	cycles, over, overLimit := collections(), int64(0), limit
	for range 20 * limit / (64 << 10) {
		sink = make([]byte, 64<<10)
		if _, l := gcSettings(); heldMemory()-l > over {
			over, overLimit = heldMemory()-l, l
		}
	}
	if collections() == cycles {
		t.Fatalf("20 times the limit of garbage started no collection")
	}
	if over > overLimit+8<<20 { // a soft limit; without one, 20 times it
		t.Fatalf("while resting the process held %d bytes over its limit of %d", over, overLimit)
	}

	// A live heap grown by 64 MB moves the limit after the next collection
	// to at least one and a half times that.
	for range 64 {
		kept = append(kept, make([]byte, 1<<20))
	}
	waitFor(t, "the limit follows the grown live heap", func() bool {
		sink = make([]byte, 64<<10) // the collection the cleanup follows
		_, l := gcSettings()
		return l > 96<<20
	})

	var passed int
	send := r.Watching(func(store.Batch) { passed++ })
	billing := &model.Unit{Key: model.Key{Engine: model.EngineArgoCD, Namespace: "argocd", Name: "billing"}}
	send(store.Batch{Status: []store.ContextStatus{{Context: "prod"}}})
	if !resting() {
		t.Fatal("a batch of the contexts' status alone ended the rest")
	}
	send(store.Batch{Units: []*model.Unit{billing}})
	if p, l := gcSettings(); p != 50 || l != math.MaxInt64 {
		t.Fatalf("after a batch that grew the model GOGC=%d, limit %d; want 50 and none", p, l)
	}
	waitFor(t, "the rest comes back once the model holds its size again", resting)
	changed := *billing
	send(store.Batch{Units: []*model.Unit{&changed}, Changed: map[model.Key]bool{billing.Key: true}})
	if !resting() {
		t.Fatal("a batch that replaced the model's one unit ended the rest")
	}
	if passed != 3 {
		t.Fatalf("%d of the 3 batches were passed on", passed)
	}

	// A key typed ends the rest, and is passed on; other messages leave it.
	if msg := r.Typing(nil, tea.WindowSizeMsg{Width: 80, Height: 24}); !resting() || msg != (tea.WindowSizeMsg{Width: 80, Height: 24}) {
		t.Fatalf("a window size ended the rest, or was not passed on (%v)", msg)
	}
	key := tea.KeyPressMsg{Code: 'j', Text: "j"}
	if msg := r.Typing(nil, key); msg != key {
		t.Fatalf("the filter passed on %v for the key %v", msg, key)
	}
	if p, l := gcSettings(); p != 50 || l != math.MaxInt64 {
		t.Fatalf("after a key typed GOGC=%d, limit %d; want 50 and none", p, l)
	}
	waitFor(t, "the rest comes back once no key is typed", resting)
	r.Stop()
	if p, l := gcSettings(); p != 50 || l != math.MaxInt64 {
		t.Fatalf("after Stop GOGC=%d, limit %d; want 50 and none", p, l)
	}
}

var sink []byte

func TestTheCollectorDoesNotRestWhenTheUserSetIt(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, "200")
			r := RestGCWhileTheModelHolds(time.Millisecond)
			if r != nil {
				r.Stop()
				t.Fatalf("with %s set the collector rests", env)
			}
			r.saw(store.Batch{Units: []*model.Unit{{}}}) // a nil rest is a no-op
			if msg := r.Typing(nil, tea.KeyPressMsg{Code: 'q', Text: "q"}); msg != (tea.KeyPressMsg{Code: 'q', Text: "q"}) {
				t.Fatalf("a nil rest's filter passed on %v", msg)
			}
			r.Stop()
		})
	}
}
