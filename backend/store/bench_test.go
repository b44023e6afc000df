package store_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetunits"
)

// BenchmarkPutFlush applies the fleet of 5,000 Applications and 1,000
// Stacks to the store: all of it at start, then batches of 100 changed units
// (what a second of 100 status changes brings), each with the Flush the pump
// makes.
func BenchmarkPutFlush(b *testing.B) {
	now := time.Now()
	units, err := fleetunits.Units(5000, 1000, now)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("load=6000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := store.New(model.DefaultThresholds)
			for _, u := range units {
				s.Put(u)
			}
			if batch, ok := s.Flush(); !ok || len(batch.Units) != len(units) {
				b.Fatalf("flushed %d units", len(batch.Units))
			}
		}
	})
	b.Run("batch=100/of=6000", func(b *testing.B) {
		s := store.New(model.DefaultThresholds)
		for _, u := range units {
			s.Put(u)
		}
		s.Flush()
		b.ReportAllocs()
		rv := 0
		for b.Loop() {
			for range 100 {
				rv++
				changed := *units[rv*7919%len(units)]
				changed.ResourceVersion = strconv.Itoa(rv)
				s.Put(&changed)
			}
			if batch, ok := s.Flush(); !ok || len(batch.Changed) != 100 {
				b.Fatalf("flushed %d changes", len(batch.Changed))
			}
		}
	})
}
