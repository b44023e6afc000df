package diff

import (
	"reflect"
	"testing"
)

func TestFieldChanges(t *testing.T) {
	m := func(kv ...any) map[string]any {
		out := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	l := func(v ...any) []any { return v }
	tests := []struct {
		name     string
		old, new map[string]any
		want     []FieldChange
	}{
		{"equal", m("a", int64(1)), m("a", int64(1)), nil},
		{"scalar in nested maps",
			m("spec", m("replicas", int64(2), "paused", false)),
			m("spec", m("replicas", int64(3), "paused", false)),
			[]FieldChange{{Path: "spec.replicas", Change: Modified}}},
		{"added and removed keys report the key, not its contents",
			m("metadata", m("labels", m("app", "web"))),
			m("metadata", m("annotations", m("a", "b", "c", "d"), "labels", m("app", "web", "tier", "front"))),
			[]FieldChange{{Path: "metadata.annotations", Change: Added}, {Path: "metadata.labels.tier", Change: Added}}},
		{"removed key",
			m("spec", m("a", int64(1), "b", int64(2))), m("spec", m("a", int64(1))),
			[]FieldChange{{Path: "spec.b", Change: Removed}}},
		{"list item field",
			m("containers", l(m("name", "web", "image", "nginx:1"), m("name", "log", "image", "fluent:1"))),
			m("containers", l(m("name", "web", "image", "nginx:1"), m("name", "log", "image", "fluent:2"))),
			[]FieldChange{{Path: "containers[1].image", Change: Modified}}},
		{"list grows and shrinks",
			m("a", l("x", "y"), "b", l("x", "y", "z")),
			m("a", l("x", "y", "z"), "b", l("x")),
			[]FieldChange{{Path: "a[2]", Change: Added}, {Path: "b[1]", Change: Removed}, {Path: "b[2]", Change: Removed}}},
		{"type change is one modification",
			m("v", m("x", int64(1))), m("v", "flat"),
			[]FieldChange{{Path: "v", Change: Modified}}},
		{"keys that are not plain words are quoted",
			m("metadata", m("labels", m("app.kubernetes.io/name", "a"))),
			m("metadata", m("labels", m("app.kubernetes.io/name", "b"))),
			[]FieldChange{{Path: `metadata.labels["app.kubernetes.io/name"]`, Change: Modified}}},
		{"null differs from a value",
			m("a", nil), m("a", int64(0)),
			[]FieldChange{{Path: "a", Change: Modified}}},
		{"document order: sorted keys, then indices",
			m("z", int64(1), "a", l(int64(1), int64(2)), "m", m("b", true, "a", true)),
			m("z", int64(2), "a", l(int64(0), int64(2)), "m", m("b", false, "a", false)),
			[]FieldChange{{Path: "a[0]", Change: Modified}, {Path: "m.a", Change: Modified}, {Path: "m.b", Change: Modified}, {Path: "z", Change: Modified}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pathsOnly(fieldChanges(tt.old, tt.new))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestObjectFieldPathsAfterNormalising(t *testing.T) {
	live := deployment("web", 2, "nginx:1")
	live["status"] = map[string]any{"readyReplicas": int64(2)}
	desired := deployment("web", 3.0, "nginx:2") // numbers as YAML decoding gives them
	desired["metadata"].(map[string]any)["labels"] = map[string]any{"app": "web"}
	d, err := Object(Pair{Live: live, Desired: desired}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []FieldChange{
		{Path: "metadata.labels", Change: Added},
		{Path: "spec.replicas", Change: Modified},
		{Path: "spec.template.spec.containers[0].image", Change: Modified},
	}
	if !reflect.DeepEqual(pathsOnly(d.Fields), want) || d.Change != Modified {
		t.Errorf("got %v %v, want modified %v", d.Change, d.Fields, want)
	}
	if d.Text.Inserted != 4 || d.Text.Deleted != 2 {
		t.Errorf("counted +%d -%d, want +4 -2:\n%s", d.Text.Inserted, d.Text.Deleted, d.Desired)
	}
}

// pathsOnly keeps each change's path and kind, for tests of those alone.
func pathsOnly(fields []FieldChange) []FieldChange {
	var out []FieldChange
	for _, f := range fields {
		out = append(out, FieldChange{Path: f.Path, Change: f.Change})
	}
	return out
}

func TestFieldChangesCarryEachSidesValue(t *testing.T) {
	live := map[string]any{"data": map[string]any{"value": "edited by hand", "gone": "x"}, "list": []any{"a"}}
	desired := map[string]any{"data": map[string]any{"value": "v1", "new": int64(2)}, "list": []any{"a", "b"}}
	want := []FieldChange{
		{Path: "data.gone", Change: Removed, Live: "x"},
		{Path: "data.new", Change: Added, Desired: int64(2)},
		{Path: "data.value", Change: Modified, Live: "edited by hand", Desired: "v1"},
		{Path: "list[1]", Change: Added, Desired: "b"},
	}
	if got := fieldChanges(live, desired); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func deployment(name string, replicas any, image string) map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": "shop"},
		"spec": map[string]any{
			"replicas": replicas,
			"template": map[string]any{"spec": map[string]any{
				"containers": []any{map[string]any{"name": name, "image": image}},
			}},
		},
	}
}

func TestPathsParseAsTheyAreWritten(t *testing.T) {
	p := appendIndex(appendKey(appendKey(appendKey("", "metadata"), "annotations"), `we"ird.key/x`), 3)
	got, err := parsePath(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	want := []segment{{key: "metadata"}, {key: "annotations"}, {key: `we"ird.key/x`}, {isIndex: true, index: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s parsed as %+v", p, got)
	}
	wild, err := parsePath("spec.env[*].*")
	if err != nil || len(wild) != 4 || !wild[2].wild || !wild[2].isIndex || !wild[3].wild || wild[3].isIndex {
		t.Errorf("wildcards parsed as %+v, %v", wild, err)
	}
	for _, bad := range []string{"", ".a", "a..b", "a[", "a[x]", "a[-1]", `a["x`, "a/b", "a.[0]"} {
		if _, err := parsePath(bad); err == nil {
			t.Errorf("parsePath(%q) accepted", bad)
		}
	}
}
