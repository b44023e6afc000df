package kube

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

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
