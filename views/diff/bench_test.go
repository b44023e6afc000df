package diff

import (
	"fmt"
	"strings"
	"testing"

	engine "github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/themes"
)

// bigReport diffs a ConfigMap of n lines in which every tenth value changed.
func bigReport(b *testing.B, n int) *engine.Report {
	b.Helper()
	live := map[string]any{}
	desired := map[string]any{}
	for i := range n {
		k := fmt.Sprintf("key-%06d", i)
		live[k] = fmt.Sprintf("value %d", i)
		desired[k] = live[k]
		if i%10 == 0 {
			desired[k] = fmt.Sprintf("value %d, changed", i)
		}
	}
	obj := func(data map[string]any) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "big", "namespace": "default"}, "data": data}
	}
	r, err := engine.Objects([]engine.Pair{{Live: obj(live), Desired: obj(desired)}}, engine.Options{Timeout: -1})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// BenchmarkView renders one frame in the middle of diffs of growing size:
// only the visible rows are rendered, so the cost stays flat.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		r := bigReport(b, n)
		for _, side := range []bool{false, true} {
			name := fmt.Sprintf("lines=%d/unified", n)
			if side {
				name = fmt.Sprintf("lines=%d/side-by-side", n)
			}
			b.Run(name, func(b *testing.B) {
				m := New(themes.Dark())
				m.SetSize(120, 40)
				m.SetReport(r, "main")
				if side {
					m.ToggleSideBySide()
				}
				m.Scroll(m.doc.rows / 2)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if v := m.View(); strings.Count(v, "\n") != 39 {
						b.Fatal("wrong height")
					}
				}
			})
		}
	}
}

// BenchmarkSetReport is the one-time cost of indexing a report for the view
// (and of laying out side-by-side rows), paid when a report arrives or the
// width or mode changes, not per frame.
func BenchmarkSetReport(b *testing.B) {
	r := bigReport(b, 10_000)
	for _, side := range []bool{false, true} {
		b.Run(fmt.Sprintf("side-by-side=%v", side), func(b *testing.B) {
			m := New(themes.Dark())
			m.SetSize(120, 40)
			m.sideBySide = side
			b.ReportAllocs()
			for b.Loop() {
				m.SetReport(r, "main")
			}
		})
	}
}
