package fleet

import (
	"context"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
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
	// what names the resource in the plural, in a notice that it may not
	// be read; units: its objects are units.
	what  string
	units bool
	// engines are those whose reading needs the watch (--engine).
	engines  []model.Engine
	versions []schema.GroupVersionResource
	// optional: a cluster without the resource lacks nothing.
	optional bool
	// nearby: optional, yet read in the context's namespace, quietly,
	// when every namespace may not be listed (a tenant's change requests).
	nearby bool
	// once: watched once, from the first namespace selected (the watch
	// decides where it lists), not in each.
	once bool
	run  watchFunc
}

// watchFunc watches gvr in namespace until ctx ends, or until absent
// answers true for the first list's failure; done is called once the
// first list is in.
type watchFunc func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, absent func(error) bool, done func())

// launcher starts a context's watches and can call them all off, should
// its discovery fail: then none of them counts as synced.
type launcher struct {
	f *Fleet
	h *health
	c *kube.Cluster
	d *discovery

	mu     sync.Mutex
	undone []func()
}

// start runs one watch in namespace, trying the versions discovery finds
// served when the newest is not. fallback: it lists in the context's
// namespace because every namespace may not be listed.
func (l *launcher) start(ctx context.Context, s watchSpec, namespace string, fallback bool) {
	done := l.f.start(ctx, l.h, func(ctx context.Context, done func()) {
		tried := map[schema.GroupVersionResource]bool{}
		gvr := s.versions[0]
		for {
			// The reflector's pager may call absent again, from its own
			// goroutine, after the watch returned: the first answer stands.
			var mu sync.Mutex
			var first error
			s.run(ctx, gvr, namespace, func(err error) bool {
				if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return true
				}
				return false
			}, done)
			mu.Lock()
			gone := first
			mu.Unlock()
			if gone == nil || ctx.Err() != nil {
				return
			}
			if apierrors.IsForbidden(gone) {
				switch {
				case !s.optional:
					l.refused(ctx, s, gvr, namespace, fallback)
				case s.nearby && namespace == "" && !fallback && l.c.Namespace != "":
					l.start(ctx, s, l.c.Namespace, true)
				}
				// Else what may be left out is, quietly (ADR 0022).
				done()
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

// refused takes a watch's first list refused (403). Partial rights are
// normal: what may not be read is named, the rest is shown, and what may
// not be listed in every namespace is read where it may be instead.
func (l *launcher) refused(ctx context.Context, s watchSpec, gvr schema.GroupVersionResource, namespace string, fallback bool) {
	u := store.Unreadable{What: s.what, Namespace: namespace, Units: s.units, For: s.engines}
	if fallback {
		u.Namespace = "" // not where it was read instead either
	}
	if namespace == "" && !fallback {
		var err error
		if u.ReadIn, err = l.readableNamespaces(ctx, gvr); err != nil {
			u.Unsearched = err.Error()
		}
	}
	// Recorded first: a refusal where it is read instead replaces it.
	l.h.unreadable(u)
	for _, ns := range u.ReadIn {
		l.start(ctx, s, ns, true)
	}
}

// readableNamespaces are where a resource that may not be listed in every
// namespace is read instead: those the access reviews find it may be
// listed in, when the user may list namespaces; else the context's
// namespace, as kubectl defaults to it (and when the reviews fail, why).
func (l *launcher) readableNamespaces(ctx context.Context, gvr schema.GroupVersionResource) ([]string, error) {
	found, ok, err := l.c.Access.NamespacesAllowing(ctx, "list", gvr)
	if ok {
		return found, nil
	}
	if l.c.Namespace != "" {
		return []string{l.c.Namespace}, err
	}
	return nil, err
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
