package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// rawList lists one resource and reads the items one by one as they stream
// in: read decodes and converts each, so the 67 MB answer of a large fleet is
// never held whole, nor are its objects kept as maps.
//
// A plain LIST is used for the first sync rather than a watch stream with
// initial events: measured against a real kube-apiserver with 5,000 14 KB
// Applications, the API server spends about a third more CPU sending the
// same objects as watch events, and on small machines that CPU is the
// start-up's floor.
func rawList[T any](ctx context.Context, rc rest.Interface, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions,
	read func([]byte) (*item[T], error)) (*itemList[T], error) {
	body, err := rc.Get().AbsPath(resourcePath(gvr, namespace)...).
		SpecificallyVersionedParams(&opts, scheme.ParameterCodec, schema.GroupVersion{Version: "v1"}).
		Stream(ctx)
	if err != nil {
		if ctx.Err() == nil && brokeOff(err) {
			return nil, &listCutError{resource: gvr.Resource, err: err}
		}
		return nil, err
	}
	defer func() { _ = body.Close() }()
	answer := &readErrors{r: body}
	list, err := decodeList(answer, read)
	switch {
	case err != nil && answer.err != nil && ctx.Err() == nil:
		return nil, &listCutError{resource: gvr.Resource, err: answer.err}
	case err != nil:
		return nil, fmt.Errorf("reading the list of %s: %w", gvr.Resource, err)
	}
	return list, nil
}

// brokeOff tells whether a request failed on its way back: the server
// answered that it timed out, or the connection broke while the answer was
// awaited or read. A server that cannot be reached, or one that refuses
// the request, is not that.
func brokeOff(err error) bool {
	if apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) {
		return true
	}
	if status := apierrors.APIStatus(nil); errors.As(err, &status) {
		return false
	}
	if op := (*net.OpError)(nil); errors.As(err, &op) {
		return op.Op == "read"
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// listCutError is a LIST whose answer broke off: the API server's request
// timeout (one minute by default) cuts a LIST that takes longer, as a very
// large one on a busy server does (ADR 0045).
type listCutError struct {
	resource string
	err      error
}

func (e *listCutError) Error() string {
	return fmt.Sprintf("the list of %s broke off (%v): listing it in pages of %d from now on", e.resource, e.err, listPageSize)
}

func (e *listCutError) Unwrap() error { return e.err }

// readErrors keeps the error a read of the answer failed with: the answer
// broke off, rather than held something that could not be read.
type readErrors struct {
	r   io.Reader
	err error
}

func (r *readErrors) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		r.err = err
	}
	return n, err
}

// itemList is a list of converted objects, as the reflector reads lists.
type itemList[T any] struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []item[T]
}

func (l *itemList[T]) DeepCopyObject() runtime.Object {
	c := *l
	c.Items = slices.Clone(l.Items)
	return &c
}

// decodeList reads a list object: its metadata, and its items one at a time.
func decodeList[T any](r io.Reader, read func([]byte) (*item[T], error)) (*itemList[T], error) {
	list := &itemList[T]{}
	err := readList(newValueReader(r), listReader{
		items: func() { list.Items = nil }, // as encoding/json, the last of repeated members counts
		item: func(raw []byte) error {
			it, err := read(raw)
			if err == nil {
				list.Items = append(list.Items, *it)
			}
			return err
		},
		metadata: func(raw []byte) error {
			list.ListMeta = metav1.ListMeta{}
			return json.Unmarshal(raw, &list.ListMeta)
		},
	})
	if err != nil {
		return nil, err
	}
	return list, nil
}

// EachListItem reads a JSON list object (the Kubernetes API's, or Argo
// CD's API server's) from r, handing each item's raw bytes to fn as they
// stream in, valid only during the call: a large list is never held whole,
// and each item is scanned once before fn decodes it. Its other members
// are validated and skipped.
func EachListItem(r io.Reader, fn func([]byte) error) error {
	return readList(newValueReader(r), listReader{items: func() {}, item: fn, metadata: func(raw []byte) error {
		if !json.Valid(raw) {
			return errors.New("JSON: invalid value of metadata")
		}
		return nil
	}})
}

// listReader is what readList does with a list's members.
type listReader struct {
	items    func() // "items" begins (again)
	item     func([]byte) error
	metadata func([]byte) error
}

// readList reads a list object and nothing after it.
func readList(v *valueReader, to listReader) error {
	err := eachElement(v, '{', '}', func() error {
		key, err := v.value()
		if err != nil {
			return err
		}
		var name string
		if err := json.Unmarshal(key, &name); err != nil {
			return fmt.Errorf("JSON: a list's member name: %w", err)
		}
		if err := v.expect(':'); err != nil {
			return err
		}
		switch name {
		case "items":
			to.items()
			return eachItem(v, to.item)
		case "metadata":
			raw, err := v.value()
			if err != nil {
				return err
			}
			return to.metadata(raw)
		}
		raw, err := v.value()
		if err == nil && !json.Valid(raw) {
			err = fmt.Errorf("JSON: invalid value of %s", name)
		}
		return err
	})
	if err != nil {
		return err
	}
	if _, err := v.next(); err != io.ErrUnexpectedEOF {
		return fmt.Errorf("JSON: data after the list (%v)", err)
	}
	return nil
}

func eachItem(v *valueReader, item func([]byte) error) error {
	if c, err := v.next(); err != nil || c == 'n' {
		if err == nil {
			raw, err := v.value()
			if err == nil && string(raw) != "null" {
				err = fmt.Errorf("JSON: items is %.20q", raw)
			}
			return err
		}
		return err
	}
	return eachElement(v, '[', ']', func() error {
		raw, err := v.value()
		if err != nil {
			return err
		}
		return item(raw)
	})
}

// eachElement reads an object or array: open, then each comma-separated
// element with one, then close.
func eachElement(v *valueReader, open, closing byte, one func() error) error {
	if err := v.expect(open); err != nil {
		return err
	}
	for first := true; ; first = false {
		c, err := v.next()
		if err != nil {
			return err
		}
		if c == closing {
			v.pos++
			return nil
		}
		if !first {
			if err := v.expect(','); err != nil {
				return err
			}
		}
		if err := one(); err != nil {
			return err
		}
	}
}

// decodeObject decodes one object with decode, or whole when decode is unset
// or fails.
func decodeObject(raw []byte, decode func([]byte) (map[string]any, error)) (map[string]any, error) {
	if decode != nil {
		if obj, err := decode(raw); err == nil {
			return obj, nil
		}
	}
	var obj map[string]any
	err := json.Unmarshal(raw, &obj)
	return obj, err
}
