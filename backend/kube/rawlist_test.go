package kube

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

// readNames converts each listed object into its name, as Watch converts
// objects into units; objects whose slim decoding fails are decoded whole.
func readNames(t *testing.T, slimFails bool) func([]byte) (*item[string], error) {
	st := &feedStore[string]{feed: Feed[string]{
		Decode: func(b []byte) (map[string]any, error) {
			if slimFails {
				return nil, errors.New("not an Application")
			}
			var m map[string]any
			err := json.Unmarshal(b, &m)
			delete(m, "spec")
			return m, err
		},
		Convert: func(obj map[string]any) string {
			u := unstructured.Unstructured{Object: obj}
			_, hasSpec := obj["spec"]
			if hasSpec != slimFails {
				t.Errorf("%s: spec kept=%v with slim decoding failing=%v", u.GetName(), hasSpec, slimFails)
			}
			return u.GetName()
		},
	}}
	return func(raw []byte) (*item[string], error) {
		obj, err := decodeObject(raw, st.feed.Decode)
		if err != nil {
			return nil, err
		}
		return st.toItem(&unstructured.Unstructured{Object: obj})
	}
}

const twoApps = `{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationList","extra":{"x":[1,2]},
 "metadata":{"resourceVersion":"4711","continue":""},
 "items":[
  {"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"a","namespace":"argocd","resourceVersion":"12"},"spec":{"project":"p"}},
  {"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"b","namespace":"argocd","resourceVersion":"13"},"spec":{}}]}`

func TestDecodeListConvertsEachItemAndKeepsTheListVersion(t *testing.T) {
	for _, slimFails := range []bool{false, true} {
		list, err := decodeList(strings.NewReader(twoApps), readNames(t, slimFails))
		if err != nil {
			t.Fatal(err)
		}
		if list.ResourceVersion != "4711" || len(list.Items) != 2 {
			t.Fatalf("resourceVersion %q, %d items", list.ResourceVersion, len(list.Items))
		}
		for i, want := range []string{"a", "b"} {
			it := list.Items[i]
			if it.value != want || it.Name != want || it.Namespace != "argocd" {
				t.Errorf("item %d: %q %s/%s", i, it.value, it.Namespace, it.Name)
			}
			// The reflector keys the items it is given.
			if key, err := cache.MetaNamespaceKeyFunc(&list.Items[i]); err != nil || key != "argocd/"+want {
				t.Errorf("item %d keyed %q (%v)", i, key, err)
			}
		}
	}
}

func TestDecodeListOfNothing(t *testing.T) {
	for _, body := range []string{`{"metadata":{"resourceVersion":"9"},"items":null}`, `{"metadata":{"resourceVersion":"9"},"items":[]}`} {
		list, err := decodeList(strings.NewReader(body), readNames(t, false))
		if err != nil || len(list.Items) != 0 || list.ResourceVersion != "9" {
			t.Errorf("%s: %v, %+v", body, err, list)
		}
	}
}

func TestDecodeListRefusesWhatIsNotAList(t *testing.T) {
	for _, body := range []string{``, `[]`, `{"items":{}}`, `{"items":[{"metadata":`, `{"items":[1]}`, `{"items":[]`} {
		if _, err := decodeList(strings.NewReader(body), readNames(t, false)); err == nil {
			t.Errorf("%q was read as a list", body)
		}
	}
}

// referenceNames reads a list with encoding/json alone: the names of its
// items, or ok=false where it is not a list of objects.
func referenceNames(data []byte) (names []string, rv string, ok bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || top == nil {
		return nil, "", false
	}
	var meta struct {
		ResourceVersion string `json:"resourceVersion"`
	}
	if m, found := top["metadata"]; found && json.Unmarshal(m, &meta) != nil {
		return nil, "", false
	}
	var items []map[string]any
	if raw, found := top["items"]; found && json.Unmarshal(raw, &items) != nil {
		return nil, "", false
	}
	for _, it := range items {
		if it == nil {
			return nil, "", false
		}
		names = append(names, (&unstructured.Unstructured{Object: it}).GetName())
	}
	return names, meta.ResourceVersion, true
}

func checkAgainstReference(t *testing.T, data []byte, r io.Reader) {
	t.Helper()
	wantNames, wantRV, ok := referenceNames(data)
	st := &feedStore[string]{feed: Feed[string]{Convert: func(obj map[string]any) string {
		return (&unstructured.Unstructured{Object: obj}).GetName()
	}}}
	list, err := decodeList(r, func(raw []byte) (*item[string], error) {
		obj, err := decodeObject(raw, nil)
		if err != nil {
			return nil, err
		}
		return st.toItem(&unstructured.Unstructured{Object: obj})
	})
	if (err == nil) != ok {
		t.Fatalf("decodeList error %v, encoding/json reads it: %v", err, ok)
	}
	if err != nil {
		return
	}
	var names []string
	for _, it := range list.Items {
		names = append(names, it.value)
	}
	if !slices.Equal(names, wantNames) || list.ResourceVersion != wantRV {
		t.Fatalf("read %q at %q, encoding/json %q at %q", names, list.ResourceVersion, wantNames, wantRV)
	}
}

func TestDecodeListAcrossReadsAndItemsLargerThanItsBuffer(t *testing.T) {
	big := strings.Repeat(`a \"quoted\" \\ {[}] `, 40000) // ~800 KB, past the 256 KB buffer
	data := []byte(`{"apiVersion":"v1","items":[{"metadata":{"name":"x"},"spec":{"s":"` + big + `"}},` +
		`{"metadata":{"name":"y","annotations":{"n":"1e5"}},"spec":{"n":-1.5e+3,"t":true,"z":null,"a":[[],{}]}}],` +
		` "kind":"List","metadata":{"resourceVersion":"77"}}` + "\n")
	for name, r := range map[string]io.Reader{
		"whole":       bytes.NewReader(data),
		"byte a time": iotest.OneByteReader(bytes.NewReader(data)),
		"half reads":  iotest.HalfReader(bytes.NewReader(data)),
	} {
		t.Run(name, func(t *testing.T) { checkAgainstReference(t, data, r) })
	}
}

func FuzzDecodeList(f *testing.F) {
	for _, seed := range []string{twoApps, `{"items":null}`, `{"items":[{"metadata":{"name":"a"}}]} `,
		`{"items":[{"a":"\"}"}],"items":[]}`, `{"metadata":{"resourceVersion":"1"},"kind":[1,{"x":"]"}]}`, `{"items":[{}]}x`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstReference(t, data, iotest.HalfReader(bytes.NewReader(data)))
	})
}
