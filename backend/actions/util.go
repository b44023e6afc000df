package actions

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
)

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// compactJSON renders a value the way the pause annotation stores it.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

// lookup walks a decoded JSON object; ok is false when any step is missing.
func lookup(obj map[string]any, path ...string) (any, bool) {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func lookupMap(obj map[string]any, path ...string) map[string]any {
	v, _ := lookup(obj, path...)
	m, _ := v.(map[string]any)
	return m
}

func lookupString(obj map[string]any, path ...string) string {
	v, _ := lookup(obj, path...)
	s, _ := v.(string)
	return s
}

func annotationsOf(obj map[string]any) map[string]string {
	m := lookupMap(obj, "metadata", "annotations")
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// deepCopyJSON copies a decoded JSON value.
func deepCopyJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = deepCopyJSON(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopyJSON(x)
		}
		return out
	}
	return v
}

// flatten lists a JSON value as "path: value" lines, one per leaf, in key
// order, for plans a person reads.
func flatten(prefix string, v any) []string {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			return []string{prefix + ": {}"}
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			out = append(out, flatten(prefix+"."+k, t[k])...)
		}
		return out
	case []any:
		if allScalars(t) {
			return []string{prefix + ": " + compactJSON(t)}
		}
		var out []string
		for i, x := range t {
			out = append(out, flatten(fmt.Sprintf("%s[%d]", prefix, i), x)...)
		}
		return out
	case string:
		return []string{prefix + ": " + strconv.Quote(t)}
	}
	return []string{prefix + ": " + compactJSON(v)}
}

func allScalars(xs []any) bool {
	for _, x := range xs {
		switch x.(type) {
		case map[string]any, []any:
			return false
		}
	}
	return true
}
