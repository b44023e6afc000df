package fleet

import (
	"context"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
)

// RootsEvery is how often each root module's state and lock are read
// again: a read runs `tofu state pull`, one request to its backend.
const RootsEvery = 30 * time.Second

// rootsAtOnce bounds the tofu processes reading at once.
const rootsAtOnce = 4

// roots are the root modules the fleet reads beside the clusters.
type roots struct {
	tofu  *rootmod.Tofu
	byKey map[model.Key]rootmod.Root
	// again asks for one root to be read now (after a plan, apply or
	// unlock).
	again chan model.Key
}

// AddRoots reads the root modules through tofu into the store, once at
// once (WaitSynced waits for it) and then every RootsEvery, until ctx
// ends. The reads run in a goroutine that start starts (go when nil): the
// demo waits for its own before it removes their working data.
func (f *Fleet) AddRoots(ctx context.Context, tofu *rootmod.Tofu, list []rootmod.Root, start func(func())) {
	rs := &roots{tofu: tofu, byKey: map[model.Key]rootmod.Root{}, again: make(chan model.Key, 16)}
	for _, r := range list {
		rs.byKey[r.Key()] = r
	}
	f.mu.Lock()
	f.roots = rs
	f.mu.Unlock()
	if start == nil {
		start = func(run func()) { go run() }
	}
	f.synced.Add(1)
	start(func() {
		f.readRoots(ctx, rs, list)
		f.synced.Done()
		tick := time.NewTicker(RootsEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				f.readRoots(ctx, rs, list)
			case k := <-rs.again:
				f.readRoots(ctx, rs, []rootmod.Root{rs.byKey[k]})
			}
		}
	})
}

// readRoots reads the roots, rootsAtOnce at a time, each into the store
// as soon as it is read.
func (f *Fleet) readRoots(ctx context.Context, rs *roots, list []rootmod.Root) {
	sem := make(chan struct{}, rootsAtOnce)
	var wg sync.WaitGroup
	for _, r := range list {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			u := rs.tofu.Read(ctx, r)
			if ctx.Err() == nil {
				f.Store.Put(u)
			}
		}()
	}
	wg.Wait()
}

// Root is the root module of a unit key, and the tofu that runs it.
func (f *Fleet) Root(k model.Key) (rootmod.Root, *rootmod.Tofu, bool) {
	f.mu.Lock()
	rs := f.roots
	f.mu.Unlock()
	if rs == nil {
		return rootmod.Root{}, nil, false
	}
	r, ok := rs.byKey[k]
	return r, rs.tofu, ok
}

// RereadRoot reads a root module again now, after a write to it.
func (f *Fleet) RereadRoot(k model.Key) {
	f.mu.Lock()
	rs := f.roots
	f.mu.Unlock()
	if rs == nil {
		return
	}
	if _, ok := rs.byKey[k]; !ok {
		return
	}
	select {
	case rs.again <- k:
	default: // a read is asked already
	}
}
