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
			[]FieldChange{{"spec.replicas", Modified}}},
		{"added and removed keys report the key, not its contents",
			m("metadata", m("labels", m("app", "web"))),
			m("metadata", m("annotations", m("a", "b", "c", "d"), "labels", m("app", "web", "tier", "front"))),
			[]FieldChange{{"metadata.annotations", Added}, {"metadata.labels.tier", Added}}},
		{"removed key",
			m("spec", m("a", int64(1), "b", int64(2))), m("spec", m("a", int64(1))),
			[]FieldChange{{"spec.b", Removed}}},
		{"list item field",
			m("containers", l(m("name", "web", "image", "nginx:1"), m("name", "log", "image", "fluent:1"))),
			m("containers", l(m("name", "web", "image", "nginx:1"), m("name", "log", "image", "fluent:2"))),
			[]FieldChange{{"containers[1].image", Modified}}},
		{"list grows and shrinks",
			m("a", l("x", "y"), "b", l("x", "y", "z")),
			m("a", l("x", "y", "z"), "b", l("x")),
			[]FieldChange{{"a[2]", Added}, {"b[1]", Removed}, {"b[2]", Removed}}},
		{"type change is one modification",
			m("v", m("x", int64(1))), m("v", "flat"),
			[]FieldChange{{"v", Modified}}},
		{"keys that are not plain words are quoted",
			m("metadata", m("labels", m("app.kubernetes.io/name", "a"))),
			m("metadata", m("labels", m("app.kubernetes.io/name", "b"))),
			[]FieldChange{{`metadata.labels["app.kubernetes.io/name"]`, Modified}}},
		{"null differs from a value",
			m("a", nil), m("a", int64(0)),
			[]FieldChange{{"a", Modified}}},
		{"document order: sorted keys, then indices",
			m("z", int64(1), "a", l(int64(1), int64(2)), "m", m("b", true, "a", true)),
			m("z", int64(2), "a", l(int64(0), int64(2)), "m", m("b", false, "a", false)),
			[]FieldChange{{"a[0]", Modified}, {"m.a", Modified}, {"m.b", Modified}, {"z", Modified}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fieldChanges(tt.old, tt.new)
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
		{"metadata.labels", Added},
		{"spec.replicas", Modified},
		{"spec.template.spec.containers[0].image", Modified},
	}
	if !reflect.DeepEqual(d.Fields, want) || d.Change != Modified {
		t.Errorf("got %v %v, want modified %v", d.Change, d.Fields, want)
	}
	if d.Text.Inserted != 4 || d.Text.Deleted != 2 {
		t.Errorf("counted +%d -%d, want +4 -2:\n%s", d.Text.Inserted, d.Text.Deleted, d.Desired)
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
