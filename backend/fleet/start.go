package fleet

import (
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/kube"
)

// A context's watches start beside its discovery, not after it (ADR 0022):
// on a cluster seconds away every round trip before the first LISTs is
// seconds more before the list is complete. Each watch lists the newest
// version of its resource at once; a 404 is the cluster saying that
// version is not served, and the watch then asks discovery for another.

// discovery is one context's discovery, awaited by the watches that need
// its answer.
type discovery struct {
	done chan struct{}
	err  error
}

func discover(ctx context.Context, c *kube.Cluster) *discovery {
	d := &discovery{done: make(chan struct{})}
	go func() {
		d.err = c.Discover(ctx, watched)
		close(d.done)
	}()
	return d
}

// wait returns discovery's error, or ctx's when it ends first;
// c.Has answers for the cluster after it returns nil.
func (d *discovery) wait(ctx context.Context) error {
	select {
	case <-d.done:
		if d.err != nil {
			return d.err
		}
		return ctx.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watchSpec is one watch of a context: the versions its resource may be
// served in, newest first, and the watch itself.
type watchSpec struct {
	versions []schema.GroupVersionResource
	// optional: a 403 on the first list leaves the resource out (no rows
	// of it, no refusal of the context).
	optional bool
	// run watches gvr until ctx ends, or until absent answers true for the
	// first list's failure; done is called once the first list is in.
	run func(ctx context.Context, gvr schema.GroupVersionResource, absent func(error) bool, done func())
}

// launcher starts a context's watches and can call them all off, should
// its discovery fail: then none of them counts as synced.
type launcher struct {
	f      *Fleet
	h      *health
	c      *kube.Cluster
	d      *discovery
	mu     sync.Mutex
	undone []func()
}

// start runs one watch, trying the versions discovery finds served when
// the newest is not.
func (l *launcher) start(ctx context.Context, s watchSpec) {
	done := l.f.start(ctx, l.h, func(ctx context.Context, done func()) {
		tried := map[schema.GroupVersionResource]bool{}
		gvr := s.versions[0]
		for {
			var gone error
			s.run(ctx, gvr, func(err error) bool {
				if apierrors.IsNotFound(err) || s.optional && apierrors.IsForbidden(err) {
					gone = err
					return true
				}
				return false
			}, done)
			if gone == nil || ctx.Err() != nil {
				return
			}
			if apierrors.IsForbidden(gone) {
				done() // left out
				return
			}
			tried[gvr] = true
			if l.d.wait(ctx) != nil {
				return
			}
			next, ok := servedUntried(l.c, s.versions, tried)
			if !ok {
				done() // not installed: discovery's status says so
				return
			}
			gvr = next
		}
	})
	l.mu.Lock()
	l.undone = append(l.undone, done)
	l.mu.Unlock()
}

// abandon releases every watch from the fleet's wait without marking the
// context synced; the caller cancels their context.
func (l *launcher) abandon() {
	l.h.abandoned.Store(true)
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, done := range l.undone {
		done()
	}
}

func servedUntried(c *kube.Cluster, versions []schema.GroupVersionResource, tried map[schema.GroupVersionResource]bool) (schema.GroupVersionResource, bool) {
	for _, v := range versions {
		if !tried[v] && c.Has(v) {
			return v, true
		}
	}
	return schema.GroupVersionResource{}, false
}
