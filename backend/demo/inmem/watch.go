package inmem

import (
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// WatchOptions select what a watch delivers.
type WatchOptions struct {
	Namespace       string // "" for all
	Label           labels.Selector
	Field           fields.Selector
	ResourceVersion string // "" or "0": the current objects first, as ADDED
	// Convert turns each object into what the client expects (typed objects
	// for the clientset); nil delivers *unstructured.Unstructured.
	Convert func(map[string]any) (runtime.Object, error)
}

// Watch streams the changes of one resource after ResourceVersion. A version
// older than the retained history answers 410 Gone, so the client relists.
func (s *Server) Watch(gvr schema.GroupVersionResource, opts WatchOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.resource(gvr); err != nil {
		return nil, err
	}
	w := &watcher{
		server: s, gvr: gvr, opts: opts,
		out:  make(chan watch.Event),
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	switch opts.ResourceVersion {
	case "", "0":
		for k, obj := range s.objects {
			if k.gvr == gvr {
				w.offer(event{typ: watch.Added, gvr: gvr, obj: obj, ns: k.namespace})
			}
		}
	default:
		from, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest("invalid resourceVersion " + strconv.Quote(opts.ResourceVersion))
		}
		if from < s.compactedRV {
			return nil, apierrors.NewResourceExpired("too old resource version: " + opts.ResourceVersion)
		}
		for _, ev := range s.history {
			if ev.rv > from {
				w.offer(ev)
			}
		}
	}
	s.watchers[w] = struct{}{}
	go w.pump()
	return w, nil
}

// watcher queues without bound, so the store never blocks on a slow reader
// and never drops an event.
type watcher struct {
	server *Server
	gvr    schema.GroupVersionResource
	opts   WatchOptions

	mu    sync.Mutex
	queue []event

	out  chan watch.Event
	wake chan struct{}
	done chan struct{}
	once sync.Once
}

// offer is called with the server's lock held.
func (w *watcher) offer(ev event) {
	if ev.gvr != w.gvr || (w.opts.Namespace != "" && ev.ns != w.opts.Namespace) || !matches(ev.obj, w.opts.Label, w.opts.Field) {
		return
	}
	w.mu.Lock()
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *watcher) pump() {
	defer close(w.out)
	for {
		w.mu.Lock()
		batch := w.queue
		w.queue = nil
		w.mu.Unlock()
		for _, ev := range batch {
			obj, err := w.convert(ev.obj)
			e := watch.Event{Type: ev.typ, Object: obj}
			if err != nil {
				e = watch.Event{Type: watch.Error, Object: &apierrors.NewInternalError(err).ErrStatus}
			}
			select {
			case w.out <- e:
			case <-w.done:
				return
			}
		}
		select {
		case <-w.wake:
		case <-w.done:
			return
		}
	}
}

func (w *watcher) convert(obj map[string]any) (runtime.Object, error) {
	if w.opts.Convert != nil {
		return w.opts.Convert(deepCopy(obj))
	}
	return &unstructured.Unstructured{Object: deepCopy(obj)}, nil
}

func (w *watcher) Stop() {
	w.once.Do(func() {
		w.server.mu.Lock()
		delete(w.server.watchers, w)
		w.server.mu.Unlock()
		close(w.done)
	})
}

func (w *watcher) ResultChan() <-chan watch.Event { return w.out }
