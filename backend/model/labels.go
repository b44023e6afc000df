package model

import (
	"slices"
	"strings"
	"unique"
)

// Labels are an object's labels, sorted by key. A unit keeps them for the
// whole session: as pairs in one slice they take about a third of what a
// map's table took (a map of a few labels was about 500 bytes a unit), and
// their keys, the same few on every object, are held once.
type Labels []Label

// Label is one label of an object.
type Label struct{ Key, Value string }

// LabelsOf sorts m's labels.
func LabelsOf(m map[string]string) Labels {
	if len(m) == 0 {
		return nil
	}
	out := make(Labels, 0, len(m))
	for k, v := range m {
		out = append(out, Label{Key: unique.Make(k).Value(), Value: v})
	}
	slices.SortFunc(out, func(a, b Label) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Get is the value of label k, "" when the object has none.
func (l Labels) Get(k string) string {
	v, _ := l.Lookup(k)
	return v
}

// Has reports whether the object has label k. With Get and Lookup, Labels
// is what a Kubernetes label selector matches (labels.Labels).
func (l Labels) Has(k string) bool {
	_, ok := l.Lookup(k)
	return ok
}

// Lookup is the value of label k and whether the object has it.
func (l Labels) Lookup(k string) (string, bool) {
	i, ok := slices.BinarySearchFunc(l, k, func(e Label, k string) int { return strings.Compare(e.Key, k) })
	if !ok {
		return "", false
	}
	return l[i].Value, true
}
