package inmem

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"
)

// matches applies label and field selectors. Field selectors name any dotted
// path of the object (metadata.name, involvedObject.uid, ...).
func matches(obj map[string]any, label labels.Selector, field fields.Selector) bool {
	if label != nil && !label.Empty() {
		ls, _, _ := unstructured.NestedStringMap(obj, "metadata", "labels")
		if !label.Matches(labels.Set(ls)) {
			return false
		}
	}
	if field != nil && !field.Empty() {
		set := fields.Set{}
		for _, r := range field.Requirements() {
			set[r.Field] = fieldValue(obj, r.Field)
		}
		if !field.Matches(set) {
			return false
		}
	}
	return true
}

func fieldValue(obj map[string]any, path string) string {
	var cur any = obj
	for _, p := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[p]
	}
	if cur == nil {
		return ""
	}
	return fmt.Sprint(cur)
}

func sortItems(items []unstructured.Unstructured) {
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.GetNamespace() != b.GetNamespace() {
			return a.GetNamespace() < b.GetNamespace()
		}
		return a.GetName() < b.GetName()
	})
}

// strategicMerge applies a strategic merge patch to a built-in kind; custom
// resources refuse it, as the apiserver does.
func strategicMerge(res Resource, cur, patch []byte) ([]byte, error) {
	typed, err := scheme.Scheme.New(res.GVK())
	if err != nil {
		return nil, apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "patch", res.GVR.GroupResource(), "",
			"strategic merge patch is not supported for custom resources; use a JSON merge patch", 0, false)
	}
	out, err := strategicpatch.StrategicMergePatch(cur, patch, typed)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return out, nil
}
