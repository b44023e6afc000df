package diff

import "fmt"

// Masks stand in for secret values. They never depend on the value, only on
// whether the two sides hold the same one (Argo CD shows Secrets this way).
const (
	maskSame    = "++++++++"
	maskChanged = "+++++++++"
)

// Every value of a Secret's data is secret (stringData is folded into data by
// normalize, but a manifest read without normalising may still carry it).
var secretDataPaths = []string{"data.*", "stringData.*"}

// secretPaths parses the caller's secret field paths.
func secretPaths(fields []string) ([][]segment, error) {
	paths := make([][]segment, 0, len(fields))
	for _, f := range fields {
		p, err := parsePath(f)
		if err != nil {
			return nil, fmt.Errorf("secret field: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

var secretDataSegments = mustPaths(secretDataPaths)

func mustPaths(fields []string) [][]segment {
	p, err := secretPaths(fields)
	if err != nil {
		panic(err)
	}
	return p
}

// maskSecrets replaces, in place, every value at the given paths on both
// sides (either may be nil), and every value of a Secret's data.
func maskSecrets(old, new map[string]any, paths [][]segment) {
	if isSecret(old) || isSecret(new) {
		paths = append(paths[:len(paths):len(paths)], secretDataSegments...)
	}
	for _, p := range paths {
		maskPath(old, new, p)
	}
}

// maskPath walks both values along path and masks what it reaches.
func maskPath(a, b any, path []segment) {
	seg, rest := path[0], path[1:]
	for _, sel := range selectors(a, b, seg) {
		ca, okA := child(a, sel)
		cb, okB := child(b, sel)
		if len(rest) > 0 {
			maskPath(ca, cb, rest)
			continue
		}
		ma, mb := masks(ca, okA, cb, okB)
		if okA {
			setChild(a, sel, ma)
		}
		if okB {
			setChild(b, sel, mb)
		}
	}
}

// masks picks the stand-ins for a pair of secret values. Pulumi's
// placeholders stay "[secret]": they hide the value from us too.
func masks(a any, okA bool, b any, okB bool) (any, any) {
	ma, mb := any(maskSame), any(maskSame)
	if a == secretPlaceholder {
		ma = secretPlaceholder
	}
	if b == secretPlaceholder {
		mb = secretPlaceholder
	}
	if okA && okB && ma == maskSame && mb == maskSame && !equalValues(a, b) {
		mb = maskChanged
	}
	return ma, mb
}

// A selector is a map key (string) or a list index (int).
func selectors(a, b any, seg segment) []any {
	if !seg.wild {
		if seg.isIndex {
			return []any{seg.index}
		}
		return []any{seg.key}
	}
	var sels []any
	if seg.isIndex {
		la, _ := a.([]any)
		lb, _ := b.([]any)
		for i := range max(len(la), len(lb)) {
			sels = append(sels, i)
		}
		return sels
	}
	ma, _ := a.(map[string]any)
	mb, _ := b.(map[string]any)
	for k := range ma {
		sels = append(sels, k)
	}
	for k := range mb {
		if _, dup := ma[k]; !dup {
			sels = append(sels, k)
		}
	}
	return sels
}

func child(v, sel any) (any, bool) {
	switch sel := sel.(type) {
	case string:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		c, ok := m[sel]
		return c, ok
	case int:
		l, ok := v.([]any)
		if !ok || sel >= len(l) {
			return nil, false
		}
		return l[sel], true
	}
	return nil, false
}

func setChild(v, sel, value any) {
	switch sel := sel.(type) {
	case string:
		v.(map[string]any)[sel] = value
	case int:
		v.([]any)[sel] = value
	}
}
