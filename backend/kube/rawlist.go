package kube

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

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
		return nil, err
	}
	defer func() { _ = body.Close() }()
	list, err := decodeList(body, read)
	if err != nil {
		return nil, fmt.Errorf("reading the list of %s: %w", gvr.Resource, err)
	}
	return list, nil
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
	dec := json.NewDecoder(bufio.NewReaderSize(r, 256<<10))
	list := &itemList[T]{}
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		switch key {
		case "items":
			if err := decodeItems(dec, list, read); err != nil {
				return nil, err
			}
		case "metadata":
			if err := dec.Decode(&list.ListMeta); err != nil {
				return nil, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
		}
	}
	return list, expectDelim(dec, '}')
}

func decodeItems[T any](dec *json.Decoder, list *itemList[T], read func([]byte) (*item[T], error)) error {
	if tok, err := dec.Token(); err != nil || tok == nil {
		return err // "items": null
	} else if tok != json.Delim('[') {
		return fmt.Errorf("items is %v, not a list", tok)
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		it, err := read(raw)
		if err != nil {
			return err
		}
		list.Items = append(list.Items, *it)
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != want {
		return fmt.Errorf("unexpected %v where %v was expected", tok, want)
	}
	return nil
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
