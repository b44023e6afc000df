package driftmark

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// Schedule checks the agent's units of one engine for drift on a timer
// (Stacks: a refresh preview; root modules: a plan): each unit once per
// Every plus its share of Jitter (fixed per unit, so that a fleet's checks
// spread out instead of starting together), at most Concurrency at a
// time. A pass only starts the checks that are due; they run in the
// background, since a refresh or a plan can take minutes. It is the
// agent's Remediator for drift: opt-in, from the config file's driftChecks
// and rootPlans.
type Schedule struct {
	// Engine is whose units are checked; Counter names the checks'
	// counter and says what it counts.
	Engine        model.Engine
	Counter       prometheus.CounterOpts
	Every, Jitter time.Duration
	Concurrency   int
	// Check runs one drift check and says how many resources drifted; it
	// records the verdict in the model itself (stackops.Ops.DriftChecked).
	Check func(ctx context.Context, k model.Key) (drifted int, err error)
	Log   io.Writer
	Now   func() time.Time

	once    sync.Once
	mu      sync.Mutex
	next    map[model.Key]time.Time
	running int
	checks  *prometheus.CounterVec
	// failed is each Stack's last failure, logged once until it changes
	// (every failure is counted).
	failed map[model.Key]string
}

func (s *Schedule) init() {
	s.once.Do(func() {
		s.next, s.failed = map[model.Key]time.Time{}, map[model.Key]string{}
		s.checks = prometheus.NewCounterVec(s.Counter, []string{"context", "result"})
	})
}

// Describe and Collect serve the checks' counter.
func (s *Schedule) Describe(ch chan<- *prometheus.Desc) { s.init(); s.checks.Describe(ch) }
func (s *Schedule) Collect(ch chan<- prometheus.Metric) { s.init(); s.checks.Collect(ch) }

// Remediate starts the checks due among units' Stacks.
func (s *Schedule) Remediate(ctx context.Context, units []*model.Unit) {
	s.init()
	now := time.Now()
	if s.Now != nil {
		now = s.Now()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[model.Key]bool{}
	for _, u := range units {
		if u.Key.Engine != s.Engine {
			continue
		}
		k := u.Key
		seen[k] = true
		due, known := s.next[k]
		if !known {
			due = now.Add(s.spread(k))
			s.next[k] = due
		}
		if now.Before(due) || s.running >= max(s.Concurrency, 1) {
			continue
		}
		s.next[k] = now.Add(s.Every + s.spread(k))
		s.running++
		go s.run(ctx, k)
	}
	for k := range s.next {
		if !seen[k] {
			delete(s.next, k) // a Stack gone, or no longer watched
			delete(s.failed, k)
		}
	}
}

// spread is k's fixed share of the jitter.
func (s *Schedule) spread(k model.Key) time.Duration {
	if s.Jitter <= 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(k.String()))
	return time.Duration(h.Sum64() % uint64(s.Jitter))
}

func (s *Schedule) run(ctx context.Context, k model.Key) {
	defer func() {
		s.mu.Lock()
		s.running--
		s.mu.Unlock()
	}()
	n, err := s.Check(ctx, k)
	switch {
	case err != nil && ctx.Err() != nil:
		return // the agent is stopping
	case err != nil:
		s.checks.WithLabelValues(k.Context, "failed").Inc()
		if s.failedAgain(k, err.Error()) {
			return
		}
		s.logf("drift check of %s failed: %s (said once until it changes; every failure counts in driftdeck_drift_checks_total)", k, safetext.Visible(err.Error()))
		return
	case n > 0:
		s.checks.WithLabelValues(k.Context, "drifted").Inc()
		s.logf("drift check of %s: %d resource(s) drifted", k, n)
	default:
		s.checks.WithLabelValues(k.Context, "clean").Inc()
	}
	s.mu.Lock()
	delete(s.failed, k)
	s.mu.Unlock()
}

// failedAgain records k's failure and says whether it is the one logged last.
func (s *Schedule) failedAgain(k model.Key, why string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	again := s.failed[k] == why
	s.failed[k] = why
	return again
}

func (s *Schedule) logf(format string, args ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, time.Now().UTC().Format(time.RFC3339)+" "+format+"\n", args...)
	}
}
