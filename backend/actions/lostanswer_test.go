package actions

import "testing"

func TestHoldsReadsBackWhatAPatchWrote(t *testing.T) {
	annotated := patch{{Op: "test", Path: "/metadata/annotations"}, {Op: "add", Path: "/metadata/annotations", Value: map[string]string{"driftdeck.io/paused-by": "ann"}}}
	suspend := patch{{Op: "add", Path: "/spec/suspend", Value: true}}
	for _, c := range []struct {
		name string
		obj  map[string]any
		ops  patch
		want bool
	}{
		{"annotations written whole", map[string]any{"metadata": map[string]any{"annotations": map[string]any{"driftdeck.io/paused-by": "ann"}}}, annotated, true},
		{"another writer's annotation beside them", map[string]any{"metadata": map[string]any{"annotations": map[string]any{"driftdeck.io/paused-by": "ann", "example.com/x": "y"}}}, annotated, true},
		{"one of them missing", map[string]any{"metadata": map[string]any{"annotations": map[string]any{"example.com/x": "y"}}}, annotated, false},
		{"one of them with another value", map[string]any{"metadata": map[string]any{"annotations": map[string]any{"driftdeck.io/paused-by": "bob"}}}, annotated, false},
		{"no annotations", map[string]any{"metadata": map[string]any{}}, annotated, false},
		{"a scalar in place", map[string]any{"spec": map[string]any{"suspend": true}}, suspend, true},
		{"a scalar not in place", map[string]any{"spec": map[string]any{"suspend": false}}, suspend, false},
		{"a scalar where an object is written", map[string]any{"metadata": map[string]any{"annotations": "x"}}, annotated, false},
		{"a removed path still there", map[string]any{"spec": map[string]any{"suspend": true}}, patch{{Op: "remove", Path: "/spec/suspend"}}, false},
		{"a removed path gone", map[string]any{"spec": map[string]any{}}, patch{{Op: "remove", Path: "/spec/suspend"}}, true},
	} {
		if got := holds(c.obj, c.ops); got != c.want {
			t.Errorf("%s: holds %v, want %v", c.name, got, c.want)
		}
	}
}
