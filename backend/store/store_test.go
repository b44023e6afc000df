package store

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

func unit(ctx, ns, name string, run model.RunState, since time.Time) *model.Unit {
	return &model.Unit{
		Key:      model.Key{Context: ctx, Engine: model.EngineArgoCD, Namespace: ns, Name: name},
		Observed: run, Run: run, RunSince: since, ResourceVersion: "1",
	}
}

func TestReplaceRemovesOnlyItsScope(t *testing.T) {
	s := New(model.DefaultThresholds)
	s.Put(unit("a", "ns1", "x", model.Idle, time.Time{}))
	s.Put(unit("a", "ns2", "y", model.Idle, time.Time{}))
	s.Put(unit("b", "ns1", "x", model.Idle, time.Time{}))
	s.Flush()
	s.Replace(Scope{Context: "a", Engine: model.EngineArgoCD, Namespace: "ns1"}, nil)
	b, ok := s.Flush()
	if !ok || len(b.Removed) != 1 || b.Removed[0].Name != "x" || b.Removed[0].Context != "a" {
		t.Fatalf("removed %v", b.Removed)
	}
	if len(b.Units) != 2 {
		t.Fatalf("units left %d, want the other namespace and the other context", len(b.Units))
	}
}

func TestRunningUnitBecomesStuckWithTime(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	s := New(model.Thresholds{Running: 10 * time.Minute, Queued: time.Minute})
	s.SetClock(func() time.Time { return now })
	s.Put(unit("a", "ns", "sync", model.Running, now.Add(-time.Minute)))
	s.Flush()
	now = now.Add(15 * time.Minute)
	s.Tick()
	b, ok := s.Flush()
	if !ok || !b.Changed[model.Key{Context: "a", Engine: model.EngineArgoCD, Namespace: "ns", Name: "sync"}] {
		t.Fatal("the clock tick did not report the unit that became stuck")
	}
	u := b.Units[0]
	if u.Run != model.Stuck || u.StuckRule == "" {
		t.Fatalf("run %v rule %q", u.Run, u.StuckRule)
	}
	// Stuck, the unit sends nothing more while it stays as it is: no
	// batch a minute for a rule counting its minutes.
	for range 30 {
		now = now.Add(time.Minute)
		s.Tick()
		if b, ok := s.Flush(); ok {
			t.Fatalf("a stuck unit that did not change sent a batch %v later: %+v", now.Sub(u.RunSince), b.Changed)
		}
	}
}

// A tick re-derives a unit only once time can change it: a run is
// re-derived when it passes its threshold, not on every tick before.
func TestTheClockReDerivesAUnitWhenItsThresholdPasses(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	s := New(model.Thresholds{Running: 10 * time.Minute})
	s.SetClock(func() time.Time { return now })
	s.Put(unit("a", "ns", "sync", model.Running, now.Add(-time.Minute)))
	s.Flush()
	if due := s.clocked[model.Key{Context: "a", Engine: model.EngineArgoCD, Namespace: "ns", Name: "sync"}]; !due.Equal(now.Add(9*time.Minute + time.Nanosecond)) {
		t.Fatalf("the run is due to be re-derived at %v, want when it passes 10m", due)
	}
	now = now.Add(9 * time.Minute)
	s.Tick()
	if _, ok := s.Flush(); ok {
		t.Fatal("a run at its threshold, not past it, changed")
	}
	now = now.Add(time.Second)
	s.Tick()
	if b, ok := s.Flush(); !ok || b.Units[0].Run != model.Stuck {
		t.Fatal("the tick after the threshold did not make the run stuck")
	}
	if len(s.clocked) != 0 {
		t.Fatalf("a stuck run is still re-derived on the clock: %v", s.clocked)
	}
}

func TestQueuedSinceIsCarriedOver(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	s := New(model.DefaultThresholds)
	s.SetClock(func() time.Time { return now })
	q := unit("a", "ns", "q", model.Running, time.Time{})
	q.Queued = true
	s.Put(q)
	now = now.Add(3 * time.Minute)
	again := *q
	again.RunSince, again.ResourceVersion = time.Time{}, "2"
	s.Put(&again)
	u, _ := s.Get(q.Key)
	if !u.RunSince.Equal(now.Add(-3*time.Minute)) || u.Run != model.Stuck {
		t.Fatalf("since %v run %v: a request queued for 3 minutes must keep its first-seen time and be stuck", u.RunSince, u.Run)
	}
}

func TestPumpBatchesBursts(t *testing.T) {
	s := New(model.DefaultThresholds)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var batches atomic.Int32
	got := make(chan Batch, 10)
	go s.Pump(ctx, 50*time.Millisecond, time.Hour, func(b Batch) { batches.Add(1); got <- b })
	for i := 0; i < 500; i++ {
		s.Put(unit("a", "ns", "u"+string(rune('a'+i%26)), model.Idle, time.Time{}))
	}
	b := <-got
	time.Sleep(150 * time.Millisecond)
	if n := batches.Load(); n > 2 {
		t.Fatalf("%d batches for one burst of 500 puts", n)
	}
	if len(b.Units) != 26 {
		t.Fatalf("batch has %d units, want 26", len(b.Units))
	}
}

// A batch that only carries the contexts' status (a lost context's
// retries) carries no units: the view keeps the ones it has.
func TestAStatusOnlyBatchCarriesNoUnits(t *testing.T) {
	s := New(model.DefaultThresholds)
	s.Put(unit("a", "ns", "u", model.Idle, time.Time{}))
	if b, ok := s.Flush(); !ok || len(b.Units) != 1 {
		t.Fatalf("the first batch: %+v", b)
	}
	s.SetStatus(ContextStatus{Context: "b", Error: "connection refused"})
	b, ok := s.Flush()
	if !ok || b.Units != nil || len(b.Status) != 1 || b.Status[0].Error != "connection refused" {
		t.Fatalf("a status-only batch: %+v, %v; want the status and no units", b, ok)
	}
}

type countingClassifier struct{ calls int }

func (c *countingClassifier) Classify(u *model.Unit, _ time.Time) bool {
	c.calls++
	if u.Key.Name == "blocked" {
		u.Observed = model.BlockedByWindow
	}
	return false
}

func TestReclassifyAppliesClassifiers(t *testing.T) {
	s := New(model.DefaultThresholds)
	c := &countingClassifier{}
	s.AddClassifier(c)
	s.Put(unit("a", "ns", "blocked", model.Idle, time.Time{}))
	u, _ := s.Get(model.Key{Context: "a", Engine: model.EngineArgoCD, Namespace: "ns", Name: "blocked"})
	if u.Run != model.BlockedByWindow {
		t.Fatalf("classifier verdict not derived: %v", u.Run)
	}
	s.Flush()
	s.Reclassify(func(*model.Unit) bool { return true })
	if _, ok := s.Flush(); ok {
		t.Fatal("re-classifying to the same verdict must not report a change")
	}
	if c.calls != 2 {
		t.Fatalf("classifier ran %d times", c.calls)
	}
}
