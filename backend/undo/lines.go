package undo

import (
	"encoding/json"
	"fmt"

	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/diff"
)

// How much of a forecast the confirmations print: past these, the rest is
// counted and the diff command named.
const (
	shownObjects = 30
	shownFields  = 10
	shownValue   = 80 // characters of one value
)

// Lines are the forecast as a confirmation prints it, first line first,
// with values as the diff masked them. The text comes from the cluster and
// the source: the caller makes escapes visible. o names where a printed
// command applies.
func (f Forecast) Lines(o cmdline.Origin) []string {
	switch {
	case f.see != "":
		return []string{f.When + ": " + o.Driftdeck(f.Key.Context, f.see, f.Key.Ref())}
	case f.Err != nil:
		return []string{"cannot tell what the controller will change: " + f.Err.Error()}
	case !f.diffed: // not computable, or the controller stays idle
		return []string{f.When}
	case len(f.Objects) == 0:
		return []string{"nothing will change (" + f.Source + ")"}
	}
	out := []string{fmt.Sprintf("%s (%s):", f.When, f.Source)}
	more := func(what string, n int) string {
		return fmt.Sprintf("… %d more %s: %s", n, what, o.Driftdeck(f.Key.Context, "diff", f.Key.Ref()))
	}
	for _, ob := range f.Objects[:min(len(f.Objects), shownObjects)] {
		out = append(out, ob.Name+": "+ob.What)
		for _, fc := range ob.Fields[:min(len(ob.Fields), shownFields)] {
			out = append(out, "  "+fieldLine(fc))
		}
		if n := len(ob.Fields) - shownFields; n > 0 {
			out = append(out, "  "+more("fields", n))
		}
	}
	if n := len(f.Objects) - shownObjects; n > 0 {
		out = append(out, more("objects", n))
	}
	return out
}

// fieldLine is one field as it is now and as the controller will write it.
func fieldLine(fc diff.FieldChange) string {
	switch fc.Change {
	case diff.Added:
		return fc.Path + ": (absent) → " + value(fc.Desired)
	case diff.Removed:
		return fc.Path + ": " + value(fc.Live) + " → (removed)"
	}
	return fc.Path + ": " + value(fc.Live) + " → " + value(fc.Desired)
}

// value shows a field's value on one line: a scalar as JSON, shortened; a
// map or a list by its size (the diff screen shows it whole).
func value(v any) string {
	switch t := v.(type) {
	case map[string]any:
		return fmt.Sprintf("{%d fields}", len(t))
	case []any:
		return fmt.Sprintf("[%d items]", len(t))
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if r := []rune(string(b)); len(r) > shownValue {
		return string(r[:shownValue-1]) + "…"
	}
	return string(b)
}

// Summary is the forecast on one line, as a bulk confirmation shows each
// unit (unescaped, as Lines).
func (f Forecast) Summary() string {
	switch {
	case f.Err != nil:
		return "cannot tell what the controller will change: " + f.Err.Error()
	case !f.diffed:
		return f.When
	case len(f.Objects) == 0:
		return "nothing will change"
	}
	counts := map[string]int{}
	var order []string
	for _, ob := range f.Objects {
		if counts[ob.What] == 0 {
			order = append(order, ob.What)
		}
		counts[ob.What]++
	}
	s := fmt.Sprintf("%d objects will change:", len(f.Objects))
	if len(f.Objects) == 1 {
		s = "1 object will change:"
	}
	for i, what := range order {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(" %d %s", counts[what], what)
	}
	return s
}
