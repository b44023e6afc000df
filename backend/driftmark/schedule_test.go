package driftmark

import (
	"github.com/prometheus/client_golang/prometheus"

	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/syncbuf"
)

func stack(name string) *model.Unit {
	return &model.Unit{Key: model.Key{Context: "prod", Engine: model.EnginePulumi, Namespace: "infra", Name: name}}
}

// Each Stack is checked once per interval, never more than the concurrency
// at once; Applications are never checked; a failure is logged and counted.
func TestScheduleChecksEachStackOncePerIntervalWithinTheConcurrency(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	release := make(chan struct{})
	var mu sync.Mutex
	var checked []string
	log := &syncbuf.Buffer{}
	s := &Schedule{Engine: model.EnginePulumi, Counter: prometheus.CounterOpts{Name: "driftdeck_drift_checks_total", Help: "checks"},
		Every: time.Hour, Concurrency: 1, Log: log, Now: func() time.Time { return now },
		Check: func(_ context.Context, k model.Key) (int, error) {
			mu.Lock()
			checked = append(checked, k.Name)
			mu.Unlock()
			<-release
			if k.Name == "broken" {
				return 0, errors.New("no state backend known")
			}
			return 1, nil
		}}
	app := &model.Unit{Key: model.Key{Context: "prod", Engine: model.EngineArgoCD, Namespace: "argocd", Name: "web"}}
	units := []*model.Unit{app, stack("analytics"), stack("broken")}
	ctx := context.Background()

	s.Remediate(ctx, units)
	s.Remediate(ctx, units) // the first check still runs: no second one starts
	release <- struct{}{}
	waitFor(t, func() bool { return running(s) == 0 })
	s.Remediate(ctx, units)
	release <- struct{}{}
	waitFor(t, func() bool { return running(s) == 0 })
	s.Remediate(ctx, units) // both checked within the hour: nothing is due
	mu.Lock()
	if got := strings.Join(checked, ","); got != "analytics,broken" {
		t.Fatalf("checked %s; want analytics then broken, once each", got)
	}
	mu.Unlock()

	now = now.Add(time.Hour + time.Second)
	s.Remediate(ctx, units)
	release <- struct{}{}
	waitFor(t, func() bool { return running(s) == 0 })
	s.Remediate(ctx, units)
	release <- struct{}{}
	waitFor(t, func() bool { return running(s) == 0 })
	mu.Lock()
	if strings.Join(checked, ",") != "analytics,broken,analytics,broken" {
		t.Errorf("after the interval checked %v; want both again", checked)
	}
	mu.Unlock()
	if n := testutil.ToFloat64(s.checks.WithLabelValues("prod", "failed")); n != 2 {
		t.Errorf("failed checks counted %v; want 2", n)
	}
	if n := strings.Count(log.String(), "broken failed"); n != 1 {
		t.Errorf("the same failure was logged %d times; want once until it changes:\n%s", n, log.String())
	}
	if n := testutil.ToFloat64(s.checks.WithLabelValues("prod", "drifted")); n != 2 {
		t.Errorf("drifted checks counted %v; want 2", n)
	}
	if !strings.Contains(log.String(), "drift check of prod:pulumi/infra/broken failed: no state backend known") {
		t.Errorf("the failure is not logged:\n%s", log.String())
	}
}

// Jitter gives each Stack a fixed share, so that a fleet's first checks
// spread over it instead of starting at once.
func TestScheduleJitterSpreadsTheFirstChecks(t *testing.T) {
	s := &Schedule{Every: time.Hour, Jitter: 10 * time.Minute}
	seen := map[time.Duration]bool{}
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		d := s.spread(stack(n).Key)
		if d < 0 || d >= s.Jitter || d != s.spread(stack(n).Key) {
			t.Fatalf("%s: spread %v; want a fixed share of the 10m jitter", n, d)
		}
		seen[d] = true
	}
	if len(seen) < 5 {
		t.Errorf("six Stacks share %d start times; want them spread", len(seen))
	}
}

func running(s *Schedule) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}
