package diff

import (
	"fmt"
	"strconv"
	"strings"
)

// A path segment selects a map key or a list index; wild selects every key or
// every index. Paths are written spec.containers[0].image, with keys that are
// not plain words quoted: metadata.labels["app.kubernetes.io/name"].
type segment struct {
	key     string
	index   int
	isIndex bool
	wild    bool
}

func appendKey(path, key string) string {
	if !plainKey(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func appendIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !plainByte(k[i]) {
			return false
		}
	}
	return true
}

func plainByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// parsePath reads a path in the form field paths are written, where a bare *
// (as a key or an index) matches anything.
func parsePath(p string) ([]segment, error) {
	var segs []segment
	i := 0
	for i < len(p) {
		switch {
		case p[i] == '[':
			end := strings.IndexByte(p[i:], ']')
			if i+1 < len(p) && p[i+1] == '"' {
				q, err := strconv.QuotedPrefix(p[i+1:])
				if err != nil {
					return nil, fmt.Errorf("path %q: bad quoted key at %d", p, i)
				}
				key, _ := strconv.Unquote(q)
				end = 1 + len(q)
				if i+end >= len(p) || p[i+end] != ']' {
					return nil, fmt.Errorf("path %q: missing ] at %d", p, i+end)
				}
				segs = append(segs, segment{key: key})
			} else {
				if end < 0 {
					return nil, fmt.Errorf("path %q: missing ] after %d", p, i)
				}
				inner := p[i+1 : i+end]
				if inner == "*" {
					segs = append(segs, segment{isIndex: true, wild: true})
				} else {
					n, err := strconv.Atoi(inner)
					if err != nil || n < 0 {
						return nil, fmt.Errorf("path %q: %q is not a list index", p, inner)
					}
					segs = append(segs, segment{isIndex: true, index: n})
				}
			}
			i += end + 1
		case p[i] == '.' && len(segs) > 0:
			i++
			fallthrough
		default:
			if i < len(p) && p[i] == '*' {
				segs = append(segs, segment{wild: true})
				i++
				break
			}
			j := i
			for j < len(p) && plainByte(p[j]) {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("path %q: expected a key at %d", p, i)
			}
			segs = append(segs, segment{key: p[i:j]})
			i = j
		}
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("empty path")
	}
	return segs, nil
}
