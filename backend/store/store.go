// Package store holds the live model: every unit of every watched cluster, keyed
// by cluster, engine, namespace and name. Sources write into it; the pump hands
// batched changes to the views.
package store

import (
	"slices"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Classifier refines a unit's observed state from knowledge the unit's own
// object does not hold (sync windows of its project, the Updates of its Stack).
// It runs before the time-based derivation, may set only the unit's fields that
// derivedAsIs compares (never mutate what its pointers share), must not keep
// the unit it is given, and reports whether its verdict can change with time
// alone.
type Classifier interface {
	Classify(u *model.Unit, now time.Time) (timeDependent bool)
}

// Store is safe for concurrent use. Units handed out are never mutated: every
// change stores a new copy.
type Store struct {
	mu      sync.Mutex
	units   map[model.Key]kept
	changed map[model.Key]struct{}
	removed map[model.Key]struct{}
	// clocked holds the units time alone can change, each with when it
	// next may (model.DerivesAgainAt); the zero time for those a
	// classifier re-reads on every tick.
	clocked     map[model.Key]time.Time
	thresholds  model.Thresholds
	classifiers []Classifier
	now         func() time.Time
	version     uint64
	signal      chan struct{}
	status      map[string]ContextStatus
	statusDirty bool
	// sorted holds the shown units in key order, so that a batch of
	// changes replaces pointers in place (found by binary search: a map of
	// positions cost about 90 bytes a unit); the order is rebuilt only when
	// units come or go (reorder).
	sorted  []*model.Unit
	reorder bool
	// scratch is where deriveLocked derives, so that a unit derivation
	// leaves as it was costs no copy.
	scratch *model.Unit
}

// kept is one unit as its adapter made it (base, before derivation) and as
// it is shown: the same struct when derivation leaves it as it was. One map
// holds both, where two maps cost about 90 bytes a unit more.
type kept struct{ base, shown *model.Unit }

// New returns an empty store.
func New(th model.Thresholds) *Store {
	return &Store{
		units:      map[model.Key]kept{},
		changed:    map[model.Key]struct{}{},
		removed:    map[model.Key]struct{}{},
		clocked:    map[model.Key]time.Time{},
		status:     map[string]ContextStatus{},
		thresholds: th,
		now:        time.Now,
		signal:     make(chan struct{}, 1),
	}
}

// SetClock replaces the clock, for tests.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// AddClassifier registers a classifier applied to every unit, in order.
func (s *Store) AddClassifier(c Classifier) {
	s.mu.Lock()
	s.classifiers = append(s.classifiers, c)
	s.mu.Unlock()
}

// Put stores a unit fresh from its adapter; the store owns it from then on.
func (s *Store) Put(u *model.Unit) {
	s.mu.Lock()
	s.putLocked(u, s.now())
	s.mu.Unlock()
	s.wake()
}

// Remove forgets a unit.
func (s *Store) Remove(k model.Key) {
	s.mu.Lock()
	s.removeLocked(k)
	s.mu.Unlock()
	s.wake()
}

// Replace makes the units of one scope (a context and engine, optionally one
// namespace) exactly the given list: units of the scope not in it are removed.
func (s *Store) Replace(scope Scope, units []*model.Unit) {
	now := s.now()
	s.mu.Lock()
	keep := make(map[model.Key]struct{}, len(units))
	for _, u := range units {
		keep[u.Key] = struct{}{}
		s.putLocked(u, now)
	}
	for k := range s.units {
		if _, ok := keep[k]; !ok && scope.Contains(k) {
			s.removeLocked(k)
		}
	}
	s.mu.Unlock()
	s.wake()
}

// Get returns the current unit for a key.
func (s *Store) Get(k model.Key) (*model.Unit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.units[k]
	return e.shown, ok
}

// Len is the number of units.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.units)
}

// Reclassify re-derives the units the filter selects, after something a
// classifier depends on changed (a project's sync windows, say).
func (s *Store) Reclassify(filter func(*model.Unit) bool) {
	now := s.now()
	s.mu.Lock()
	for k, e := range s.units {
		if filter(e.base) {
			s.deriveLocked(k, e.base, now)
		}
	}
	s.mu.Unlock()
	s.wake()
}

// Tick re-derives the units whose state time alone changes by now (runs
// passing their stuck threshold, pauses expiring) and those a classifier
// re-reads on every tick (windows, change requests).
func (s *Store) Tick() {
	now := s.now()
	s.mu.Lock()
	for k, due := range s.clocked {
		if due.After(now) {
			continue
		}
		if e, ok := s.units[k]; ok {
			s.deriveLocked(k, e.base, now)
		}
	}
	s.mu.Unlock()
	s.wake()
}

func (s *Store) putLocked(u *model.Unit, now time.Time) {
	if u.RunSince.IsZero() && u.Observed != model.Idle {
		// The object does not say since when: date the state from when it was
		// first seen, carried over while it lasts.
		u.RunSince = now
		if prev := s.units[u.Key].base; prev != nil && prev.Observed == u.Observed && prev.Queued == u.Queued {
			u.RunSince = prev.RunSince
		}
	}
	e := s.units[u.Key]
	e.base = u
	s.units[u.Key] = e
	delete(s.removed, u.Key)
	s.deriveLocked(u.Key, u, now)
}

// deriveLocked computes the shown unit from the adapter's one and records a
// change when it differs from what is shown now. A unit that derivation
// leaves as the adapter made it (most: no window, no request, no stuck
// clock) is shown as that same struct; a copy is kept only for the others.
func (s *Store) deriveLocked(k model.Key, base *model.Unit, now time.Time) {
	if s.scratch == nil {
		s.scratch = new(model.Unit)
	}
	d := s.scratch
	*d = *base
	clock := false
	for _, c := range s.classifiers {
		if c.Classify(d, now) {
			clock = true
		}
	}
	model.Derive(d, now, s.thresholds)
	if due := model.DerivesAgainAt(d, now, s.thresholds); clock || !due.IsZero() {
		if clock {
			due = time.Time{}
		}
		s.clocked[k] = due
	} else {
		delete(s.clocked, k)
	}
	shown := base
	if !derivedAsIs(base, d) {
		c := *d
		shown = &c
	}
	*d = model.Unit{} // keeps nothing of base alive
	if cur := s.units[k].shown; cur != nil && (cur == shown || sameShown(cur, shown)) {
		return
	}
	s.units[k] = kept{base: base, shown: shown}
	if !s.reorder {
		if i, ok := slices.BinarySearchFunc(s.sorted, k, func(u *model.Unit, k model.Key) int { return model.CompareKeys(u.Key, k) }); ok {
			s.sorted[i] = shown
		} else {
			s.reorder = true
		}
	}
	s.changed[k] = struct{}{}
	s.version++
}

// sameShown tells whether a re-derivation changed nothing: same source object
// and same derived fields.
func sameShown(a, b *model.Unit) bool {
	return a.ResourceVersion == b.ResourceVersion && a.UID == b.UID &&
		a.Run == b.Run && a.StuckRule == b.StuckRule && a.RunReason == b.RunReason &&
		a.RunSince.Equal(b.RunSince) && a.Window == b.Window && sameSourceState(a.SourceState, b.SourceState) &&
		sameRequest(a.Request, b.Request) && a.Drift.Same(b.Drift) && a.Sync == b.Sync && a.SyncNative == b.SyncNative
}

// derivedAsIs tells whether derivation left every field it may write as the
// adapter made it. Classifiers and model.Derive write only these fields
// (derivedFields in the tests holds the list a new field must join).
func derivedAsIs(base, d *model.Unit) bool {
	return base.Observed == d.Observed && base.Run == d.Run && base.RunSince.Equal(d.RunSince) && base.RunReason == d.RunReason &&
		base.StuckRule == d.StuckRule && base.Queued == d.Queued && base.Persisting == d.Persisting &&
		base.Window == d.Window && base.WindowAllowsManual == d.WindowAllowsManual &&
		sameSourceState(base.SourceState, d.SourceState) && sameRequest(base.Request, d.Request) && base.Drift.Same(d.Drift) &&
		base.Sync == d.Sync && base.SyncNative == d.SyncNative
}

func sameRequest(a, b *model.RequestMark) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func sameSourceState(a, b *model.SourceState) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func (s *Store) removeLocked(k model.Key) {
	if _, ok := s.units[k]; !ok {
		return
	}
	delete(s.units, k)
	s.reorder = true
	delete(s.clocked, k)
	delete(s.changed, k)
	s.removed[k] = struct{}{}
	s.version++
}

func (s *Store) wake() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}
