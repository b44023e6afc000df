package argodiff

import (
	"reflect"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/objread"
)

func TestIgnoreDifferencesRemovesPointedFields(t *testing.T) {
	app := map[string]any{"spec": map[string]any{"ignoreDifferences": []any{
		map[string]any{"group": "apps", "kind": "Deployment", "jsonPointers": []any{"/spec/replicas", "/metadata/annotations/a~1b", "/spec/list/1"}},
		map[string]any{"kind": "ConfigMap", "name": "other", "jsonPointers": []any{"/data"}},
	}}}
	rules, note := readIgnoreRules(objread.New(app))
	if note != "" {
		t.Errorf("note %q for pointers only", note)
	}
	obj := func() map[string]any {
		return map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "web", "annotations": map[string]any{"a/b": "x", "keep": "y"}},
			"spec":     map[string]any{"replicas": 3, "list": []any{"a", "b", "c"}},
		}
	}
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "web"}, "data": map[string]any{"k": "v"}}
	pairs := []diff.Pair{{Live: obj(), Desired: obj()}, {Live: cm}}
	applyIgnoreRules(pairs, rules)
	want := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "annotations": map[string]any{"keep": "y"}},
		"spec":     map[string]any{"list": []any{"a", "c"}},
	}
	for _, side := range []map[string]any{pairs[0].Live, pairs[0].Desired} {
		if !reflect.DeepEqual(side, want) {
			t.Errorf("got %v, want %v", side, want)
		}
	}
	if _, ok := cm["data"]; !ok {
		t.Error("a rule for another name removed data")
	}
}

func TestIgnoreDifferencesNotesWhatIsNotApplied(t *testing.T) {
	app := map[string]any{"spec": map[string]any{"ignoreDifferences": []any{
		map[string]any{"kind": "Secret", "jqPathExpressions": []any{".data.token"}},
	}}}
	if _, note := readIgnoreRules(objread.New(app)); !strings.Contains(note, "jqPathExpressions") {
		t.Errorf("note %q", note)
	}
}
