// Package agent is driftdeck run headless: the same live model (fleet and
// store) and the same write path (actions.Executor) as the workbench, kept
// running to serve Prometheus metrics and health probes, and, for each
// context whose Lease this replica holds, to end that context's pauses whose
// expiry has passed and to run the remediation policies a user configured.
package agent

import (
	"context"
	"crypto/tls"
	"fmt"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/agent/securemetrics"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/metrics"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

// Remediator is one more duty of the leader on every pass (the policies).
type Remediator interface {
	Remediate(ctx context.Context, units []*model.Unit)
	prometheus.Collector
}

// Agent serves metrics and probes and, while leading, writes.
type Agent struct {
	Store *store.Store
	Exec  *actions.Executor
	// Contexts are the contexts the agent must have synced before it is ready.
	Contexts []string
	// Elections, one per context (its Lease in that context's cluster),
	// make only the holder of a context's Lease write to that context; with
	// none, this replica writes to every context (a single replica).
	Elections []*Election
	Policies  Remediator
	// DriftChecks start the Stacks' scheduled drift checks due on each
	// pass (config driftChecks); nil runs none.
	DriftChecks Remediator
	// RootPlans start the root modules' scheduled plans (config rootPlans),
	// run by the writer of the first context; nil runs none.
	RootPlans Remediator
	// RequestExec applies approved change requests, through the Kubernetes
	// API (where their plans are made); nil applies none.
	RequestExec *actions.Executor
	// RequestNamespace limits the change requests read ("": every one).
	RequestNamespace string
	// RootRequests applies the approved requests of the root modules the
	// agent reads; nil applies none.
	RootRequests changereq.RootSender
	// Interval between the leader's passes over the model (10s by default).
	Interval time.Duration
	// MetricsAddr and ProbeAddr are where /metrics and /healthz, /readyz
	// are served; "" or "0" serves none.
	MetricsAddr, ProbeAddr string
	// MetricsTLS, when set, serves /metrics over TLS, and MetricsGuard lets
	// through only callers the API server authorizes (securemetrics).
	MetricsTLS   *tls.Config
	MetricsGuard *securemetrics.Guard
	UnitNames    bool
	Log          io.Writer
	Now          func() time.Time

	mu      sync.Mutex
	addrs   map[string]net.Addr
	leading map[string]int // contexts this replica writes to now ("": every context)
	resumed resumeBook
	// appliers of change requests, by context.
	appliers map[string]*changereq.Applier

	// leaseTroubles, by context: its Lease cannot be taken or renewed now.
	leaseTroubles map[string]*leaseTrouble

	resumes      *prometheus.CounterVec
	passes       prometheus.Counter
	leader       *prometheus.GaugeVec
	leaseErrors  *prometheus.CounterVec
	leaseFailing *prometheus.GaugeVec
	requests     *prometheus.CounterVec
}

func (a *Agent) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func (a *Agent) logf(format string, args ...any) {
	if a.Log != nil {
		fmt.Fprintf(a.Log, time.Now().UTC().Format(time.RFC3339)+" "+format+"\n", args...)
	}
}

// IsLeader tells whether this replica writes to any context now.
func (a *Agent) IsLeader() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.leading) > 0
}

// Leads tells whether this replica writes to the named context now.
func (a *Agent) Leads(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.leading[name] > 0 || a.leading[""] > 0
}

// setLeading records that this replica starts (on) or stops writing to the
// named context ("": every context), in the leader gauge too.
func (a *Agent) setLeading(name string, on bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.leading == nil {
		a.leading = map[string]int{}
	}
	if on {
		a.leading[name]++
	} else if a.leading[name]--; a.leading[name] <= 0 {
		delete(a.leading, name)
	}
	for _, c := range a.Contexts {
		a.leader.WithLabelValues(c).Set(map[bool]float64{true: 1}[a.leading[c] > 0 || a.leading[""] > 0])
	}
}

// Addr is where a server listens once Run started it ("metrics" or "probes").
func (a *Agent) Addr(which string) net.Addr {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.addrs[which]
}

// Run serves and campaigns until ctx ends. It returns once the servers
// are listening or failed to (the error), the rest runs on in the
// background until ctx ends; done is closed when all of it stopped.
func (a *Agent) Run(ctx context.Context) (done <-chan struct{}, err error) {
	reg := a.registry()
	a.appliers = a.appliersOf()
	var wg sync.WaitGroup
	a.addrs = map[string]net.Addr{}
	serve := func(which, addr string, h http.Handler, tlsConfig *tls.Config) error {
		if addr == "" || addr == "0" {
			return nil
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("--%s-bind-address %s: %w", map[string]string{"metrics": "metrics", "probes": "health-probe"}[which], addr, err)
		}
		if tlsConfig != nil {
			l = tls.NewListener(l, tlsConfig)
		}
		a.mu.Lock()
		a.addrs[which] = l.Addr()
		a.mu.Unlock()
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		wg.Add(2)
		go func() { defer wg.Done(); _ = srv.Serve(l) }()
		go func() { defer wg.Done(); <-ctx.Done(); _ = srv.Close() }()
		return nil
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	probes := http.NewServeMux()
	probes.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	probes.HandleFunc("/readyz", a.readyz)
	var metricsHandler http.Handler = mux
	if a.MetricsGuard != nil {
		metricsHandler = a.MetricsGuard.Wrap(mux)
	}
	if err := serve("metrics", a.MetricsAddr, metricsHandler, a.MetricsTLS); err != nil {
		return nil, err
	}
	if err := serve("probes", a.ProbeAddr, probes, nil); err != nil {
		return nil, err
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if len(a.Elections) == 0 {
			a.lead(ctx, "")
			return
		}
		// Each context campaigns once its own first lists arrived: one
		// context that cannot be reached holds back only itself.
		for _, e := range a.Elections {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if !a.waitSynced(ctx, e.Context) {
					return
				}
				lead := func(ctx context.Context) { a.lead(ctx, e.Context) }
				attempt := func(err error) { a.leaseAttempt(ctx, e, err) }
				if err := e.run(ctx, lead, attempt, func() { a.leaseLost(e) }); err != nil {
					a.logf("leader election of context %s: %v", e.Context, err)
				}
			}()
		}
	}()
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	return ch, nil
}

func (a *Agent) registry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	a.resumes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "driftdeck_agent_expired_pause_resumes_total",
		Help: "Pauses the agent ended at their expiry, by outcome (done, refused, failed).",
	}, []string{"outcome"})
	a.passes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "driftdeck_agent_passes_total", Help: "Passes of the leader over the model.",
	})
	a.leader = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "driftdeck_agent_leader", Help: "1 while this replica holds the context's Lease and writes to it.",
	}, []string{"context"})
	for _, c := range a.Contexts {
		a.leader.WithLabelValues(c).Set(0)
	}
	a.leaseErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "driftdeck_agent_lease_errors_total",
		Help: "Failed tries to take or renew the context's Lease, by reason (namespace_not_found, forbidden, unauthorized, conflict, invalid, timeout, throttled, unreachable, other).",
	}, []string{"context", "reason"})
	a.leaseFailing = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "driftdeck_agent_lease_failing",
		Help: "1 while the last try to take or renew the context's Lease failed, with its reason: this replica cannot lead the context.",
	}, []string{"context", "reason"})
	a.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "driftdeck_agent_change_requests_total",
		Help: "Change requests the agent closed, by phase (Applied, Stale, Expired, Rejected, Cancelled, Failed).",
	}, []string{"phase"})
	leader := a.leader
	ready := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "driftdeck_agent_ready", Help: "1 while every context has delivered its first lists (0 while one is unreachable: the others are still served and written to).",
	}, func() float64 { return map[bool]float64{true: 1}[len(a.unsynced()) == 0] })
	reg.MustRegister(&metrics.Collector{Source: a.Store, UnitNames: a.UnitNames, Now: a.Now}, a.resumes, a.passes, leader, ready, a.leaseErrors, a.leaseFailing, a.requests)
	if a.Policies != nil {
		reg.MustRegister(a.Policies)
	}
	if a.RootPlans != nil {
		reg.MustRegister(a.RootPlans)
	}
	if a.DriftChecks != nil {
		reg.MustRegister(a.DriftChecks)
	}
	return reg
}

// syncedNow is the expected contexts whose watches delivered their first
// lists: what a pass may act on.
func (a *Agent) syncedNow() map[string]bool {
	out := map[string]bool{}
	for _, s := range a.Store.Status() {
		if s.Synced && slices.Contains(a.Contexts, s.Context) {
			out[s.Context] = true
		}
	}
	return out
}

// unsynced says, for each expected context not synced, why.
func (a *Agent) unsynced() []string {
	byName := map[string]store.ContextStatus{}
	for _, s := range a.Store.Status() {
		byName[s.Context] = s
	}
	var out []string
	for _, c := range a.Contexts {
		s, ok := byName[c]
		switch {
		case !ok:
			out = append(out, "context "+c+": not connected yet")
		case !s.Synced:
			out = append(out, "context "+c+": first lists not complete"+map[bool]string{true: " (" + s.Error + ")"}[s.Error != ""])
		}
	}
	return out
}

// unserved says, for each expected context this replica cannot serve or
// lead, why: not synced, or its Lease cannot be taken (a follower of
// another replica's Lease is served).
func (a *Agent) unserved() []string {
	missing := a.unsynced()
	synced := a.syncedNow()
	for _, c := range a.Contexts {
		if why := a.leaseTroubleOf(c); why != "" && synced[c] {
			missing = append(missing, "context "+c+": "+why)
		}
	}
	return missing
}

// readyz is 200 once at least one context is synced and its Lease can be
// taken (this replica serves it and leads or follows), listing every
// context it cannot serve; 503 while none is.
func (a *Agent) readyz(w http.ResponseWriter, _ *http.Request) {
	missing := a.unserved()
	if len(missing) == len(a.Contexts) && len(missing) > 0 {
		http.Error(w, strings.Join(missing, "\n"), http.StatusServiceUnavailable)
		return
	}
	io.WriteString(w, "ok\n")
	for _, m := range missing {
		io.WriteString(w, "not served: "+safetext.Visible(m)+"\n")
	}
	// Partial rights are normal: ready, with what is not read said.
	for _, s := range a.Store.Status() {
		if n := s.NotShown(); n != "" && slices.Contains(a.Contexts, s.Context) {
			io.WriteString(w, "context "+safetext.Visible(s.Context)+": "+safetext.Visible(n)+"\n")
		}
	}
}

// waitSynced returns true once the named context delivered its first lists,
// false when ctx ended first: nobody acts on half a list.
func (a *Agent) waitSynced(ctx context.Context, name string) bool {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for !a.syncedNow()[name] {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	return true
}

// lead runs the leader's passes over one context ("": every context) until
// ctx ends (or the context's Lease is lost).
func (a *Agent) lead(ctx context.Context, only string) {
	if ctx.Err() != nil {
		return
	}
	a.setLeading(only, true)
	defer a.setLeading(only, false)
	what := "every context"
	if only != "" {
		what = "context " + only
	}
	a.logf("leading: this replica writes to %s", what)
	interval := a.Interval
	if interval <= 0 {
		interval = 10 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		a.pass(ctx, only)
		select {
		case <-ctx.Done():
			a.logf("stopped leading %s", what)
			return
		case <-t.C:
		}
	}
}

// pass is one look at the units of one context ("": of every context): end
// expired pauses, apply approved change requests, then run the policies.
func (a *Agent) pass(ctx context.Context, only string) {
	a.Store.Tick()
	units := a.Store.Snapshot()
	// Only contexts whose first lists are complete: nobody acts on half a
	// list, and an unreachable context holds back only itself.
	synced := a.syncedNow()
	units = slices.DeleteFunc(units, func(u *model.Unit) bool {
		if !u.Key.Engine.InCluster() {
			// In no cluster: the writer of the first context runs their duties.
			return only != "" && (len(a.Contexts) == 0 || only != a.Contexts[0])
		}
		return !synced[u.Key.Context] || (only != "" && u.Key.Context != only)
	})
	a.resumeExpired(ctx, units)
	a.applyRequests(ctx, only, synced)
	if a.Policies != nil && ctx.Err() == nil {
		a.Policies.Remediate(ctx, units)
	}
	if a.DriftChecks != nil && ctx.Err() == nil {
		a.DriftChecks.Remediate(ctx, units)
	}
	if a.RootPlans != nil && ctx.Err() == nil {
		a.RootPlans.Remediate(ctx, units)
	}
	a.passes.Inc()
}
