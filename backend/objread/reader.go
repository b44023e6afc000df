// Package objread reads fields of unstructured Kubernetes objects without
// trusting their shape: a missing field is simply absent, a field of the wrong
// type is recorded as a read error and treated as absent. Nothing here panics.
package objread

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Reader reads paths from one object and collects what it could not read.
type Reader struct {
	obj    map[string]any
	prefix string
	errs   *[]string
}

// New reads from obj (which may be nil).
func New(obj map[string]any) *Reader { return &Reader{obj: obj, errs: new([]string)} }

// Errors lists what could not be read, by path, for this reader and every
// reader derived from it.
func (r *Reader) Errors() []string { return *r.errs }

// At returns a reader of the object at path. It shares the error list; its
// errors name full paths.
func (r *Reader) At(path ...string) *Reader {
	return r.sub(r.Map(path...), strings.Join(path, "."))
}

func (r *Reader) sub(obj map[string]any, rel string) *Reader {
	return &Reader{obj: obj, prefix: r.prefix + rel + ".", errs: r.errs}
}

func (r *Reader) lookup(path []string) (any, bool) {
	var cur any = r.obj
	for i, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			if cur != nil {
				r.fail(path[:i], "an object", cur)
			}
			return nil, false
		}
		cur, ok = m[p]
		if !ok || cur == nil {
			return nil, false
		}
	}
	return cur, true
}

func (r *Reader) fail(path []string, want string, got any) {
	r.failf(path, "want %s, got %s", want, describe(got))
}

func (r *Reader) failf(path []string, format string, args ...any) {
	*r.errs = append(*r.errs, r.prefix+strings.Join(path, ".")+": "+fmt.Sprintf(format, args...))
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		return "string " + strconv.Quote(truncate(v, 40))
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case int64, int, float64:
		return fmt.Sprintf("number %v", v)
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%T", v)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Has reports whether a non-null value exists at path.
func (r *Reader) Has(path ...string) bool {
	_, ok := r.lookup(path)
	return ok
}

// Str reads a string.
func (r *Reader) Str(path ...string) string {
	v, ok := r.lookup(path)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		r.fail(path, "a string", v)
	}
	return s
}

// Bool reads a boolean; present is false when the field is absent or unreadable.
func (r *Reader) Bool(path ...string) (value, present bool) {
	v, ok := r.lookup(path)
	if !ok {
		return false, false
	}
	b, isBool := v.(bool)
	if !isBool {
		r.fail(path, "a boolean", v)
		return false, false
	}
	return b, true
}

// Int reads an integer (JSON numbers arrive as int64 or float64).
func (r *Reader) Int(path ...string) int64 {
	v, ok := r.lookup(path)
	if !ok {
		return 0
	}
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case float64:
		return int64(n)
	}
	r.fail(path, "a number", v)
	return 0
}

// Time reads an RFC 3339 timestamp.
func (r *Reader) Time(path ...string) time.Time {
	s := r.Str(path...)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		r.failf(path, "want a timestamp, got %q", truncate(s, 40))
		return time.Time{}
	}
	return t
}

// Map reads an object.
func (r *Reader) Map(path ...string) map[string]any {
	v, ok := r.lookup(path)
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		r.fail(path, "an object", v)
	}
	return m
}

// Slice reads a list.
func (r *Reader) Slice(path ...string) []any {
	v, ok := r.lookup(path)
	if !ok {
		return nil
	}
	s, isSlice := v.([]any)
	if !isSlice {
		r.fail(path, "a list", v)
	}
	return s
}

// Objects reads a list of objects; entries that are not objects are recorded
// as errors and skipped.
func (r *Reader) Objects(path ...string) []*Reader {
	items := r.Slice(path...)
	out := make([]*Reader, 0, len(items))
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			r.fail(append(append([]string{}, path...), "["+strconv.Itoa(i)+"]"), "an object", it)
			continue
		}
		out = append(out, r.sub(m, strings.Join(path, ".")+"["+strconv.Itoa(i)+"]"))
	}
	return out
}

// Strings reads a list of strings; non-string entries are recorded as
// errors and skipped.
func (r *Reader) Strings(path ...string) []string {
	var out []string
	for i, it := range r.Slice(path...) {
		s, ok := it.(string)
		if !ok {
			r.fail(append(append([]string{}, path...), "["+strconv.Itoa(i)+"]"), "a string", it)
			continue
		}
		out = append(out, s)
	}
	return out
}

// StringMap reads a map of strings (labels, annotations); non-string values are
// recorded and skipped.
func (r *Reader) StringMap(path ...string) map[string]string {
	m := r.Map(path...)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			r.fail(append(append([]string{}, path...), k), "a string", v)
			continue
		}
		out[k] = s
	}
	return out
}
