package store

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Batch is what the views receive: every change since the previous batch.
type Batch struct {
	Version uint64
	// Units is the whole current model, sorted by key. The slice and the units
	// are never modified afterwards; views may keep them. It is nil when only
	// Status changed: a lost context's retries then cost no pass over every
	// unit.
	Units   []*model.Unit
	Changed map[model.Key]bool
	Removed []model.Key
	Status  []ContextStatus
}

// Flush takes the pending changes. It returns false when there are none.
func (s *Store) Flush() (Batch, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.changed) == 0 && len(s.removed) == 0 && !s.statusDirty {
		return Batch{}, false
	}
	b := Batch{Version: s.version, Changed: make(map[model.Key]bool, len(s.changed)), Status: s.statusLocked()}
	for k := range s.changed {
		b.Changed[k] = true
	}
	for k := range s.removed {
		b.Removed = append(b.Removed, k)
	}
	if len(s.changed) > 0 || len(s.removed) > 0 {
		b.Units = s.snapshotLocked()
	}
	clear(s.changed)
	clear(s.removed)
	s.statusDirty = false
	return b, true
}

// Snapshot returns every unit, sorted by key.
func (s *Store) Snapshot() []*model.Unit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotLocked()
}

// snapshotLocked returns a copy of the units in key order: views keep the
// copies they were given, the store keeps changing its own.
func (s *Store) snapshotLocked() []*model.Unit {
	if s.reorder {
		s.sorted = s.sorted[:0]
		for _, e := range s.units {
			s.sorted = append(s.sorted, e.shown)
		}
		slices.SortFunc(s.sorted, func(a, b *model.Unit) int { return model.CompareKeys(a.Key, b.Key) })
		s.reorder = false
	}
	return slices.Clone(s.sorted)
}

func sortStatus(st []ContextStatus) {
	slices.SortFunc(st, func(a, b ContextStatus) int { return strings.Compare(a.Context, b.Context) })
}

// Pump hands batches to send, at most one per interval, until ctx ends. A burst
// of watch events becomes one batch; an idle store costs nothing. The clock
// tick re-derives time-dependent units every tick interval.
func (s *Store) Pump(ctx context.Context, interval, tick time.Duration, send func(Batch)) {
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			s.Tick()
			continue
		case <-s.signal:
		}
		// Let the burst that woke us gather before flushing.
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
		if b, ok := s.Flush(); ok {
			send(b)
		}
	}
}
