package compat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// comparable is what an object's read-back is judged on: its content and the
// metadata users set, not what the apiserver stamps (uid, versions, times).
func comparable(obj map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range obj {
		if k != "metadata" {
			out[k] = v
		}
	}
	meta, _ := obj["metadata"].(map[string]any)
	kept := map[string]any{}
	for _, k := range []string{"name", "labels", "annotations", "finalizers"} {
		if v, ok := meta[k]; ok {
			kept[k] = v
		}
	}
	out["metadata"] = kept
	return normalize(out)
}

// normalize makes numbers compare the same whichever decoder made them.
func normalize(v any) map[string]any {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		panic(err)
	}
	return out
}

// A difference is one path where two objects differ.
type difference struct {
	path string // e.g. .spec.syncWindows[0].description
	text string
}

func (d difference) String() string { return d.path + ": " + d.text }

// pattern is the path with list indices replaced by [*].
func (d difference) pattern() string { return listIndex.ReplaceAllString(d.path, "[*]") }

var listIndex = regexp.MustCompile(`\[[0-9]+\]`)

func lines(ds []difference) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return strings.Join(out, "\n  ")
}

// missing lists the paths of want that got lacks or holds differently.
func missing(want, got any) []difference { return diff("", want, got, false) }

// differences lists every path where a and b differ.
func differences(a, b any) []difference { return diff("", a, b, true) }

func diff(path string, want, got any, both bool) []difference {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []difference{{orRoot(path), fmt.Sprintf("%s, want an object", show(got))}}
		}
		var out []difference
		for _, k := range sortedKeys(w) {
			if gv, ok := g[k]; ok {
				out = append(out, diff(path+"."+k, w[k], gv, both)...)
			} else {
				out = append(out, difference{path + "." + k, "absent, want " + show(w[k])})
			}
		}
		if both {
			for _, k := range sortedKeys(g) {
				if _, ok := w[k]; !ok {
					out = append(out, difference{path + "." + k, show(g[k]) + ", want absent"})
				}
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []difference{{orRoot(path), fmt.Sprintf("%s, want %s", show(got), show(want))}}
		}
		var out []difference
		for i := range w {
			out = append(out, diff(fmt.Sprintf("%s[%d]", path, i), w[i], g[i], both)...)
		}
		return out
	default:
		if show(want) != show(got) {
			return []difference{{orRoot(path), fmt.Sprintf("%s, want %s", show(got), show(want))}}
		}
		return nil
	}
}

func orRoot(path string) string {
	if path == "" {
		return "."
	}
	return path
}

func show(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(raw) > 120 {
		return string(raw[:117]) + "..."
	}
	return string(raw)
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestDiffFindsMissingChangedAndExtraFields(t *testing.T) {
	want := normalize(map[string]any{"spec": map[string]any{"a": 1, "list": []any{"x", "y"}, "gone": true}})
	got := normalize(map[string]any{"spec": map[string]any{"a": 2, "list": []any{"x", "y"}, "extra": "e"}})
	if d := lines(missing(want, got)); d != `.spec.a: 2, want 1`+"\n  "+`.spec.gone: absent, want true` {
		t.Errorf("missing() = %s", d)
	}
	if d := differences(want, got); len(d) != 3 || d[2].path != ".spec.extra" {
		t.Errorf("differences() = %s, want a, gone and extra", lines(d))
	}
	if d := differences(want, want); len(d) != 0 {
		t.Errorf("an object differs from itself: %s", lines(d))
	}
	list := difference{path: ".spec.syncWindows[12].clusters[0]"}
	if got := list.pattern(); got != ".spec.syncWindows[*].clusters[*]" {
		t.Errorf("pattern() = %q", got)
	}
}
