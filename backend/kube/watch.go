package kube

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// Feed receives the objects of one watch. Convert runs once per object as it
// arrives and its result is all that is kept: the raw object is dropped at
// once, so memory holds only what the views need.
type Feed[T any] struct {
	// Decode, when set, decodes an object's JSON keeping what Convert reads.
	Decode  func([]byte) (map[string]any, error)
	Convert func(obj map[string]any) T
	Put     func(T)
	Delete  func(namespace, name string)
	// Replace receives the whole list after every (re)list.
	Replace func([]T)
	// Absent, when set, hears why the first list failed; when it answers
	// true the watch ends there and health never hears of it: the watch
	// was started before discovery said the resource is served, and a 404
	// (or a 403: what the identity may not read) is an answer, not an
	// outage.
	Absent func(err error) bool
}

// Health receives the watch's connection events.
type Health interface {
	Connected()
	Disconnected(err error)
	Event()
}

// Watch lists and watches one resource in one namespace ("" for all) until ctx
// ends, feeding every change. Reconnection is the reflector's: on a broken
// watch it relists with backoff; health hears of every list and watch attempt,
// and of a failed probe as soon as a watch stream ends.
func Watch[T any](ctx context.Context, c *Cluster, gvr schema.GroupVersionResource, namespace string, feed Feed[T], health Health) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	ri := c.Dynamic.Resource(gvr).Namespace(namespace)
	store := &feedStore[T]{feed: feed, health: health}
	// answered counts the list and watch calls the server answered: a probe
	// that fails after one of them is stale news.
	var answered atomic.Int64
	reportAnswer := func(err error) {
		if ctx.Err() != nil {
			return // the watch was called off: its last failure is no news
		}
		if err == nil {
			answered.Add(1)
		}
		report(health, err)
	}
	var listed atomic.Bool
	absent := func(err error) bool {
		if err == nil {
			listed.Store(true)
			return false
		}
		if feed.Absent == nil || listed.Load() || !feed.Absent(err) {
			return false
		}
		stop()
		return true
	}
	// When a watch stream ends, the reflector waits a backoff (about a
	// second, more after repeated failures) before it lists again: ask the
	// server at once whether it is still there, so that a lost connection
	// shows within the probe's timeout.
	broken := func() {
		before := answered.Load()
		if err := c.probe(ctx); err != nil && ctx.Err() == nil && answered.Load() == before {
			health.Disconnected(err)
		}
	}
	read := func(raw []byte) (*item[T], error) {
		obj, err := decodeObject(raw, feed.Decode)
		if err != nil {
			return nil, err
		}
		return store.toItem(&unstructured.Unstructured{Object: obj})
	}
	// paged is set once a LIST broke off as it came in: from then on this
	// resource is listed in pages, each answered well within the server's
	// request timeout (ADR 0045).
	var paged atomic.Bool
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			if paged.Load() {
				opts = inPages(opts)
			}
			var list runtime.Object
			var err error
			if c.REST != nil {
				list, err = rawList(ctx, c.REST, gvr, namespace, opts, read)
			} else {
				list, err = ri.List(ctx, opts)
			}
			if cut := (*listCutError)(nil); errors.As(err, &cut) {
				paged.Store(true)
			}
			if absent(err) {
				return nil, err
			}
			reportAnswer(err)
			return list, err
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			var w watch.Interface
			var err error
			if c.REST != nil {
				w, err = rawWatch(ctx, c.REST, gvr, namespace, opts, feed.Decode, broken)
			} else {
				w, err = ri.Watch(ctx, opts)
			}
			reportAnswer(err)
			return w, err
		},
	}
	r := cache.NewReflectorWithOptions(listFirst{lw}, &unstructured.Unstructured{}, store,
		cache.ReflectorOptions{Name: fmt.Sprintf("%s %s", c.Context, gvr.Resource), MinWatchTimeout: 5 * time.Minute})
	r.RunWithContext(ctx)
}

// listPageSize is how many objects a page of a paged LIST holds: client-go's
// pager's default.
const listPageSize = 500

// inPages makes a LIST ask for one page: without a resourceVersion, which
// would have the watch cache answer in one piece whatever the limit (the
// pages are consistent reads from etcd; the pager clears it for the pages
// after the first anyway).
func inPages(opts metav1.ListOptions) metav1.ListOptions {
	opts.Limit = listPageSize
	if opts.Continue == "" {
		opts.ResourceVersion, opts.ResourceVersionMatch = "", ""
	}
	return opts
}

// probeTimeout bounds the question "is the server still there?".
const probeTimeout = time.Second

// probe asks the apiserver whether it is ready to serve (/readyz): nil when
// it answers ready, or when it answers at all but refuses to say (the
// endpoint is public by default; a cluster may restrict it).
func (c *Cluster) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	// No retries: a refused or reset connection is the answer.
	err := c.REST.Get().AbsPath("/readyz").MaxRetries(0).Do(ctx).Error()
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		return nil
	}
	return err
}

// listFirst makes the reflector LIST, then watch from the list's version,
// instead of asking for a watch stream with initial events (see rawList).
type listFirst struct{ *cache.ListWatch }

func (listFirst) IsWatchListSemanticsUnSupported() bool { return true }

func report(h Health, err error) {
	if err != nil {
		h.Disconnected(err)
	} else {
		h.Connected()
	}
}

// item is a listed object once converted: the value with just enough
// metadata for the reflector to key it.
type item[T any] struct {
	metav1.ObjectMeta
	value T
}

func (i *item[T]) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (i *item[T]) DeepCopyObject() runtime.Object   { c := *i; return &c }

// feedStore adapts a Feed to the reflector's store interface.
type feedStore[T any] struct {
	feed   Feed[T]
	health Health
}

func (s *feedStore[T]) toItem(obj any) (*item[T], error) {
	switch o := obj.(type) {
	case *item[T]:
		return o, nil
	case *unstructured.Unstructured:
		it := &item[T]{value: s.feed.Convert(o.Object)}
		it.Name, it.Namespace, it.ResourceVersion = o.GetName(), o.GetNamespace(), o.GetResourceVersion()
		return it, nil
	}
	return nil, fmt.Errorf("unexpected object %T in watch", obj)
}

func (s *feedStore[T]) Add(obj any) error    { return s.put(obj) }
func (s *feedStore[T]) Update(obj any) error { return s.put(obj) }

func (s *feedStore[T]) put(obj any) error {
	it, err := s.toItem(obj)
	if err != nil {
		return err
	}
	s.health.Event()
	s.feed.Put(it.value)
	return nil
}

func (s *feedStore[T]) Delete(obj any) error {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	s.health.Event()
	switch o := obj.(type) {
	case *item[T]:
		s.feed.Delete(o.Namespace, o.Name)
	case *unstructured.Unstructured:
		s.feed.Delete(o.GetNamespace(), o.GetName())
	default:
		return fmt.Errorf("unexpected object %T in watch", obj)
	}
	return nil
}

func (s *feedStore[T]) Replace(list []any, _ string) error {
	out := make([]T, 0, len(list))
	for _, obj := range list {
		it, err := s.toItem(obj)
		if err != nil {
			return err
		}
		out = append(out, it.value)
	}
	s.health.Event()
	s.feed.Replace(out)
	return nil
}

func (s *feedStore[T]) Resync() error { return nil }
