package kube

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// rawWatch opens a watch and decodes each event in one pass, straight into
// the maps the adapters read. client-go's own watch decoding reads every
// object several times (framing, kind detection, the event envelope, then
// the object); at thousands of 14 KB Applications that was most of the
// start-up's CPU.
//
// decode, when set, decodes an object (it may keep only what the adapter
// reads); when it fails, the whole object is decoded instead.
func rawWatch(ctx context.Context, rc rest.Interface, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions,
	decode func([]byte) (map[string]any, error), broken func()) (watch.Interface, error) {
	opts.Watch = true
	body, err := rc.Get().AbsPath(resourcePath(gvr, namespace)...).
		SpecificallyVersionedParams(&opts, scheme.ParameterCodec, schema.GroupVersion{Version: "v1"}).
		Stream(ctx)
	if err != nil {
		return nil, err
	}
	w := &streamWatch{body: body, result: make(chan watch.Event, 64), done: make(chan struct{}), decode: decode, broken: broken}
	go w.run()
	return w, nil
}

func resourcePath(gvr schema.GroupVersionResource, namespace string) []string {
	p := []string{"apis", gvr.Group, gvr.Version}
	if gvr.Group == "" {
		p = []string{"api", gvr.Version}
	}
	if namespace != "" {
		p = append(p, "namespaces", namespace)
	}
	return append(p, gvr.Resource)
}

// streamWatch is a watch.Interface over a JSON event stream.
type streamWatch struct {
	body   io.ReadCloser
	result chan watch.Event
	done   chan struct{}
	once   sync.Once
	decode func([]byte) (map[string]any, error)
	// broken, when set, runs (in its own goroutine) when the stream ends
	// other than by Stop: the server closed it or the connection broke.
	broken func()
}

func (w *streamWatch) ResultChan() <-chan watch.Event { return w.result }

func (w *streamWatch) Stop() {
	w.once.Do(func() {
		close(w.done)
		_ = w.body.Close()
	})
}

func (w *streamWatch) run() {
	defer close(w.result)
	defer w.Stop()
	defer func() {
		select {
		case <-w.done:
		default:
			if w.broken != nil {
				go w.broken()
			}
		}
	}()
	// A watch sends one object at a time: a buffer of a few of them is
	// enough, and each watch keeps its buffer for as long as it runs.
	dec := json.NewDecoder(bufio.NewReaderSize(w.body, 32<<10))
	for {
		var ev struct {
			Type   watch.EventType `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		// A decoding error ends the watch like a closed connection: the
		// reflector starts a new one.
		if err := dec.Decode(&ev); err != nil {
			return
		}
		fields, err := decodeObject(ev.Object, w.decode)
		if err != nil {
			return
		}
		var obj runtime.Object = &unstructured.Unstructured{Object: fields}
		if ev.Type == watch.Error {
			status := &metav1.Status{}
			if runtime.DefaultUnstructuredConverter.FromUnstructured(fields, status) != nil {
				return
			}
			obj = status
		}
		select {
		case w.result <- watch.Event{Type: ev.Type, Object: obj}:
		case <-w.done:
			return
		}
	}
}
