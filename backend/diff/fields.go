package diff

import "sort"

// Change says how an object, or one of its fields, differs between the sides.
type Change uint8

const (
	Unchanged Change = iota
	Added            // only on the desired side
	Removed          // only on the live side
	Modified
)

func (c Change) String() string {
	switch c {
	case Added:
		return "added"
	case Removed:
		return "removed"
	case Modified:
		return "modified"
	}
	return "unchanged"
}

// FieldChange is one changed field. An added or removed map or list is one
// change at its own path, not one per field inside it.
type FieldChange struct {
	Path   string // e.g. spec.template.spec.containers[0].image
	Change Change
	// Live and Desired are the field's normalised, masked value on each
	// side; nil on the side an added or removed field is not on.
	Live, Desired any
}

// fieldChanges walks two normalised values side by side, in the order their
// YAML prints: map keys sorted, list items by index.
func fieldChanges(old, new any) []FieldChange {
	var out []FieldChange
	walkFields("", old, new, &out)
	return out
}

func walkFields(path string, a, b any, out *[]FieldChange) {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			for _, k := range unionKeys(av, bv) {
				ca, inA := av[k]
				cb, inB := bv[k]
				p := appendKey(path, k)
				switch {
				case !inA:
					*out = append(*out, FieldChange{Path: p, Change: Added, Desired: cb})
				case !inB:
					*out = append(*out, FieldChange{Path: p, Change: Removed, Live: ca})
				default:
					walkFields(p, ca, cb, out)
				}
			}
			return
		}
	case []any:
		if bv, ok := b.([]any); ok {
			for i := range max(len(av), len(bv)) {
				p := appendIndex(path, i)
				switch {
				case i >= len(av):
					*out = append(*out, FieldChange{Path: p, Change: Added, Desired: bv[i]})
				case i >= len(bv):
					*out = append(*out, FieldChange{Path: p, Change: Removed, Live: av[i]})
				default:
					walkFields(p, av[i], bv[i], out)
				}
			}
			return
		}
	}
	if !equalValues(a, b) {
		*out = append(*out, FieldChange{Path: path, Change: Modified, Live: a, Desired: b})
	}
}

func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, max(len(a), len(b)))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, dup := a[k]; !dup {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// equalValues compares normalised values (plain JSON types, whole numbers as
// int64).
func equalValues(a, b any) bool {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, ea := range av {
			eb, ok := bv[k]
			if !ok || !equalValues(ea, eb) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !equalValues(av[i], bv[i]) {
				return false
			}
		}
		return true
	case nil, string, bool, int64, float64:
		return a == b
	}
	return false
}
