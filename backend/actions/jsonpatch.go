package actions

import (
	"encoding/json"
	"strings"
)

// Op is one RFC 6902 JSON patch operation. Every driftdeck write is a JSON
// patch whose "test" operations are its preconditions: the server applies the
// whole patch atomically or none of it.
type Op struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// MarshalJSON keeps an explicit null value for test operations ("test that
// the field is absent"), which omitempty would drop.
func (o Op) MarshalJSON() ([]byte, error) {
	type plain struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	if o.Op == "remove" {
		return json.Marshal(struct {
			Op   string `json:"op"`
			Path string `json:"path"`
		}{o.Op, o.Path})
	}
	return json.Marshal(plain(o))
}

// Pointer builds a JSON pointer from path segments, escaping "~" and "/"
// (annotation keys contain slashes).
func Pointer(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	return b.String()
}

// patch accumulates operations.
type patch []Op

func (p *patch) test(value any, path ...string) { *p = append(*p, Op{"test", Pointer(path...), value}) }
func (p *patch) add(value any, path ...string)  { *p = append(*p, Op{"add", Pointer(path...), value}) }
func (p *patch) replace(value any, path ...string) {
	*p = append(*p, Op{"replace", Pointer(path...), value})
}

// swap tests that path still holds current (absent when !present) and
// writes value there.
func (p *patch) swap(current any, present bool, value any, path ...string) {
	if present {
		p.test(current, path...)
		p.replace(value, path...)
		return
	}
	p.test(nil, path...)
	p.add(value, path...)
}

func (p *patch) remove(path ...string) { *p = append(*p, Op{Op: "remove", Path: Pointer(path...)}) }

// setAnnotations adds annotations to an object whose current annotations are
// given. When the object has none, the map is created under a test that it is
// still absent, so a concurrent writer's annotations are never replaced.
func (p *patch) setAnnotations(current map[string]string, set map[string]string) {
	if current == nil {
		p.test(nil, "metadata", "annotations")
		p.add(set, "metadata", "annotations")
		return
	}
	for _, k := range sortedKeys(set) {
		p.add(set[k], "metadata", "annotations", k)
	}
}

// removeAnnotations removes annotations known to be present, testing their
// values first.
func (p *patch) removeAnnotations(current map[string]string, keys []string) {
	for _, k := range keys {
		if v, ok := current[k]; ok {
			p.test(v, "metadata", "annotations", k)
			p.remove("metadata", "annotations", k)
		}
	}
}

func (p patch) bytes() ([]byte, error) { return json.Marshal(p) }
