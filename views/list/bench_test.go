package list

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetunits"
	"github.com/driftdeck/driftdeck/themes"
)

// fleetList is the list holding the generated fleet's model at 120x36 (the
// body of a 120x40 terminal).
func fleetList(b *testing.B, apps, stacks int) (*Model, []*model.Unit, time.Time) {
	b.Helper()
	now := time.Now()
	units, err := fleetunits.Snapshot(apps, stacks, now)
	if err != nil {
		b.Fatal(err)
	}
	m := New(themes.Dark())
	m.SetSize(120, 36)
	m.SetUnits(units, nil, now)
	return m, units, now
}

// BenchmarkView renders one frame of 5,000 rows after the cursor moved, with
// the cursor mid-list: only the visible rows are drawn, and of those only the
// two whose selection changed are styled again.
func BenchmarkView(b *testing.B) {
	m, _, now := fleetList(b, 5000, 0)
	m.MoveTo(2500)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		m.MoveTo(2500 + n%2)
		if v := m.View(now); strings.Count(v, "\n") != 35 {
			b.Fatal("wrong height")
		}
	}
}

// BenchmarkViewAllRowsDrawn renders a frame in which every visible row is
// styled again (a theme switch; the first frame after a filter is close).
func BenchmarkViewAllRowsDrawn(b *testing.B) {
	m, _, now := fleetList(b, 5000, 0)
	m.MoveTo(2500)
	dark, light := themes.Dark(), themes.Light()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		if n%2 == 0 {
			m.SetTheme(dark)
		} else {
			m.SetTheme(light)
		}
		if v := m.View(now); strings.Count(v, "\n") != 35 {
			b.Fatal("wrong height")
		}
	}
}

// BenchmarkSetFilter types a filter into 6,000 units one character at a
// time, starting from none, as a user does: a plain word (substring search)
// and one with expression syntax (the regexp engine). ms/keystroke is the
// cost of one SetFilter, the clearing one included.
func BenchmarkSetFilter(b *testing.B) {
	m, _, _ := fleetList(b, 5000, 1000)
	for _, text := range []string{"api-prod-0", "stuck|fail"} {
		b.Run("typing="+text, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.SetFilter("")
				for n := 1; n <= len(text); n++ {
					m.SetFilter(text[:n])
				}
			}
			perKey := float64(b.Elapsed()) / float64(b.N) / float64(len(text)+1)
			b.ReportMetric(perKey/float64(time.Millisecond), "ms/keystroke")
		})
	}
}

// BenchmarkSetSort orders 6,000 units by each mode.
func BenchmarkSetSort(b *testing.B) {
	m, _, _ := fleetList(b, 5000, 1000)
	for _, mode := range []SortMode{ByState, ByAge, ByName} {
		b.Run(mode.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.SetSort(mode)
			}
		})
	}
}

// BenchmarkSetUnits takes a new model of 6,000 units in which 100 changed:
// what the list does for every batch while 100 changes a second stream in.
func BenchmarkSetUnits(b *testing.B) {
	m, units, now := fleetList(b, 5000, 1000)
	next := append([]*model.Unit(nil), units...)
	var changes fleetunits.Changes
	b.ReportAllocs()
	for b.Loop() {
		m.SetUnits(slices.Clone(next), changes.Apply(next, 100), now)
	}
}
