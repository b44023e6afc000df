package flux

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

var now = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func load(t testing.TB, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// set puts v at path, creating objects on the way.
func set(obj map[string]any, v any, path ...string) {
	m := obj
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// cond is a status condition that changed d ago.
func cond(typ, status, reason, msg string, d time.Duration) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg, "lastTransitionTime": now.Add(-d).Format(time.RFC3339)}
}

func conds(cs ...map[string]any) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = c
	}
	return out
}

// derived is the unit as the store shows it at now.
func derived(u *model.Unit) *model.Unit {
	model.Derive(u, now, model.DefaultThresholds)
	return u
}

// checkSlim asserts that the slim decoder gives Convert exactly what the
// whole object gives it.
func checkSlim(t *testing.T, obj map[string]any, decode func([]byte) (map[string]any, error), convert func(string, map[string]any) *model.Unit) {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var whole map[string]any
	if err := json.Unmarshal(data, &whole); err != nil {
		t.Fatal(err)
	}
	slim, err := decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := convert("c", slim), convert("c", whole); !sameUnit(got, want) {
		t.Fatalf("slim decode converts to\n%+v\nwhole object to\n%+v", got, want)
	}
}

// sameUnit compares units with their read errors in any order (labels and
// annotations are maps: their errors come in map order).
func sameUnit(a, b *model.Unit) bool {
	x, y := *a, *b
	x.ReadErrors, y.ReadErrors = sorted(a.ReadErrors), sorted(b.ReadErrors)
	return reflect.DeepEqual(&x, &y)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
