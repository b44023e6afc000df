package sim

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The application controller's status writes to a generated Application do
// not queue its ApplicationSet, as upstream's predicate drops them; an edit
// of what the ApplicationSet owns does.
func TestOnlyAnEditOfWhatTheApplicationSetOwnsQueuesIt(t *testing.T) {
	child := func(edit func(u *unstructured.Unstructured)) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"name": "cart", "annotations": map[string]any{"a": "1"}},
			"spec":     map[string]any{"syncPolicy": map[string]any{"automated": map[string]any{"selfHeal": true}}},
			"status":   map[string]any{"sync": map[string]any{"status": "Synced"}},
		}}
		if edit != nil {
			edit(u)
		}
		return u
	}
	old := child(nil)
	for _, tc := range []struct {
		name string
		edit func(u *unstructured.Unstructured)
		want bool
	}{
		{"a status write", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "OutOfSync", "status", "sync", "status")
			u.SetResourceVersion("7")
		}, false},
		{"no finalizers where there were none, as an empty list", func(u *unstructured.Unstructured) { u.SetFinalizers([]string{}) }, false},
		{"the spec", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, false, "spec", "syncPolicy", "automated", "enabled")
		}, true},
		{"an annotation", func(u *unstructured.Unstructured) { u.SetAnnotations(map[string]string{"a": "2"}) }, true},
		{"a label", func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"team": "x"}) }, true},
		{"a finalizer", func(u *unstructured.Unstructured) { u.SetFinalizers([]string{"f"}) }, true},
	} {
		if got := templateChanged(old, child(tc.edit)); got != tc.want {
			t.Errorf("%s: queues the ApplicationSet %v, want %v", tc.name, got, tc.want)
		}
	}
}
