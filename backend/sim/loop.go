package sim

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// objectKey names one object to reconcile.
type objectKey struct{ namespace, name string }

// loop is the controller machinery: informers feed a delaying work queue,
// workers reconcile one key at a time (never the same key concurrently), and a
// reconcile may ask to run again after a delay.
type loop struct {
	queue     workqueue.TypedDelayingInterface[objectKey]
	reconcile func(ctx context.Context, k objectKey) (again time.Duration, err error)
	onError   func(error)
	retry     time.Duration
	informers []cache.SharedIndexInformer
}

func newLoop(reconcile func(context.Context, objectKey) (time.Duration, error), onError func(error), retry time.Duration) *loop {
	return &loop{
		queue:     workqueue.NewTypedDelayingQueue[objectKey](),
		reconcile: reconcile,
		onError:   onError,
		retry:     retry,
	}
}

// inform adds an informer whose events map to keys to reconcile.
func (l *loop) inform(dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace string, keys func(*unstructured.Unstructured) []objectKey) cache.SharedIndexInformer {
	inf := l.newInformer(dyn, gvr, namespace)
	l.follow(inf, keys)
	return inf
}

// newInformer is an informer of gvr that the loop runs.
func (l *loop) newInformer(dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace string) cache.SharedIndexInformer {
	inf := dynamicinformer.NewFilteredDynamicInformer(dyn, gvr, namespace, 0, cache.Indexers{}, nil).Informer()
	l.informers = append(l.informers, inf)
	return inf
}

// follow queues keys from the events of an informer that another loop runs.
func (l *loop) follow(inf cache.SharedIndexInformer, keys func(*unstructured.Unstructured) []objectKey) {
	enqueue := l.enqueuer(keys)
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, n any) { enqueue(n) },
		DeleteFunc: enqueue,
	})
}

// own adds an informer of the objects the controller generates, queueing
// their owner as controller-runtime's Owns with a predicate does: not on a
// create (the controller made it), on a delete, and on an update only when
// changed says it matters to the owner.
func (l *loop) own(dyn dynamic.Interface, gvr schema.GroupVersionResource, namespace string, owner func(*unstructured.Unstructured) []objectKey, changed func(old, new *unstructured.Unstructured) bool) {
	inf := l.newInformer(dyn, gvr, namespace)
	enqueue := l.enqueuer(owner)
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(o, n any) {
			old, ok1 := o.(*unstructured.Unstructured)
			updated, ok2 := n.(*unstructured.Unstructured)
			if ok1 && ok2 && changed(old, updated) {
				enqueue(n)
			}
		},
		DeleteFunc: enqueue,
	})
}

// enqueuer queues the keys of an informer's object.
func (l *loop) enqueuer(keys func(*unstructured.Unstructured) []objectKey) func(obj any) {
	return func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return
		}
		for _, k := range keys(u) {
			l.queue.Add(k)
		}
	}
}

func selfKey(u *unstructured.Unstructured) []objectKey {
	return []objectKey{{u.GetNamespace(), u.GetName()}}
}

// run starts the informers and workers and blocks until ctx ends. ready is
// closed once every informer has synced.
func (l *loop) run(ctx context.Context, workers int, ready chan<- struct{}) {
	var wg sync.WaitGroup
	for _, inf := range l.informers {
		wg.Go(func() { inf.RunWithContext(ctx) })
	}
	synced := make([]cache.InformerSynced, len(l.informers))
	for i, inf := range l.informers {
		synced[i] = inf.HasSynced
	}
	if cache.WaitForCacheSync(ctx.Done(), synced...) && ready != nil {
		close(ready)
	}
	for range workers {
		wg.Go(func() { l.work(ctx) })
	}
	<-ctx.Done()
	l.queue.ShutDown()
	wg.Wait()
}

func (l *loop) work(ctx context.Context) {
	for {
		k, quit := l.queue.Get()
		if quit {
			return
		}
		again, err := l.reconcile(ctx, k)
		l.queue.Done(k)
		if ctx.Err() != nil {
			continue
		}
		if err != nil {
			if l.onError != nil {
				l.onError(err)
			}
			again = l.retry
		}
		if again > 0 {
			l.queue.AddAfter(k, again)
		}
	}
}
