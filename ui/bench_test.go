package ui

import (
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetunits"

	tea "charm.land/bubbletea/v2"
)

// fleetApp is the workbench at 120x40 holding the generated fleet of 5,000
// Applications and 1,000 Stacks.
func fleetApp(b *testing.B) (*App, []*model.Unit) {
	b.Helper()
	now := time.Now()
	units, err := fleetunits.Snapshot(5000, 1000, now)
	if err != nil {
		b.Fatal(err)
	}
	a := New(Options{Backend: &fakeBackend{}, Theme: "dark", Initial: store.Batch{Units: units}, Now: func() time.Time { return now }})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return a, units
}

// BenchmarkBatchUpdateView is one batch of 10 changed units handled and
// drawn: what the loop does about six times a second while 100 status
// changes a second stream in.
func BenchmarkBatchUpdateView(b *testing.B) {
	a, units := fleetApp(b)
	next := append([]*model.Unit(nil), units...)
	var changes fleetunits.Changes
	b.ReportAllocs()
	for b.Loop() {
		changed := changes.Apply(next, 10)
		snapshot := append([]*model.Unit(nil), next...)
		a.Update(BatchMsg(store.Batch{Units: snapshot, Changed: changed}))
		_ = a.View()
	}
}

// BenchmarkKeyUpdateView is one cursor move handled and drawn.
func BenchmarkKeyUpdateView(b *testing.B) {
	a, _ := fleetApp(b)
	down, up := keyMsg("j"), keyMsg("k")
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		k := down
		if n++; n%200 >= 100 {
			k = up
		}
		a.Update(k)
		_ = a.View()
	}
}
