// Package mutate derives malformed variants of realistic objects for fuzz tests
// of the adapters: nodes replaced, removed or retyped as the fuzzer's bytes direct.
package mutate

import "sort"

// Object returns a deep copy of obj in which nodes are replaced, removed or
// retyped as the bytes direct. It is deterministic for the same bytes.
func Object(obj map[string]any, data []byte) map[string]any {
	m := &mutator{data: data}
	out, _ := m.walk(obj).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out
}

type mutator struct {
	data []byte
	pos  int
}

func (m *mutator) next() byte {
	if len(m.data) == 0 {
		return 0
	}
	b := m.data[m.pos%len(m.data)]
	m.pos++
	return b
}

var replacements = []any{nil, "", "x", "2026-13-45T99:00:00Z", int64(-1), float64(3.5), true, []any{}, []any{1, "a", nil}, map[string]any{}, map[string]any{"phase": 7}}

func (m *mutator) walk(v any) any {
	if b := m.next(); b%7 == 0 {
		return replacements[int(m.next())%len(replacements)]
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys) // map order must not change what the bytes do
		for _, k := range keys {
			if m.next()%11 == 0 {
				continue
			}
			out[k] = m.walk(t[k])
		}
		return out
	case []any:
		out := make([]any, 0, len(t))
		for _, x := range t {
			out = append(out, m.walk(x))
		}
		return out
	}
	return v
}
