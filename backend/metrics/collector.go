// Package metrics exposes the live model to Prometheus: how many units are in
// each state, how long the oldest stuck or failed one has been so, pauses and
// their expiry, and the health of the watches that feed the model. Every
// value is computed from the store when scraped, so nothing drifts from what
// the TUI shows. Labels are bounded (context, engine, namespace, state);
// unit names appear only when asked for (UnitNames).
package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

// The states driftdeck_units counts. A unit may be in several (stuck and
// drifted); paused counts pauses without an expiry, frozen those with one.
const (
	StateStuck     = "stuck"
	StateFailed    = "failed"
	StatePaused    = "paused"
	StateFrozen    = "frozen"
	StateAwaiting  = "awaiting approval"
	StateBlocked   = "blocked by window"
	StateDrifted   = "drifted"
	StateSuspended = "suspended"
)

// States lists every state label, in the order they are exported.
var States = []string{StateStuck, StateFailed, StatePaused, StateFrozen, StateAwaiting, StateBlocked, StateDrifted, StateSuspended}

// Source is what the collector reads: the store.
type Source interface {
	Snapshot() []*model.Unit
	Status() []store.ContextStatus
}

// Collector is a prometheus.Collector over the store.
type Collector struct {
	Source Source
	// UnitNames adds per-unit series (a unit label) for stuck and failed
	// ages and pause expiries: unbounded, off unless asked for.
	UnitNames bool
	Now       func() time.Time
}

var (
	ns       = []string{"context", "engine", "namespace"}
	withUnit = []string{"context", "engine", "namespace", "unit"}

	descUnits = prometheus.NewDesc("driftdeck_units",
		"Units per state (stuck, failed, paused, frozen: paused with an expiry, awaiting approval, blocked by window, drifted, suspended); a unit may count in several states.",
		append(ns, "state"), nil)
	descOldest = prometheus.NewDesc("driftdeck_units_oldest_state_age_seconds",
		"How long the oldest unit has been in the state (stuck or failed), per namespace.",
		append(ns, "state"), nil)
	descUnitAge = prometheus.NewDesc("driftdeck_unit_state_age_seconds",
		"How long a unit has been stuck or failed (only with --metrics-unit-names).",
		append(withUnit, "state"), nil)
	descPauses = prometheus.NewDesc("driftdeck_pauses",
		"driftdeck pauses recorded on units: expiring=\"true\" for those with an expiry.",
		append(ns, "expiring"), nil)
	descExpired = prometheus.NewDesc("driftdeck_pauses_expired",
		"Pauses whose expiry has passed and that are still in place: the agent resumes them, so this stays 0 while an agent leads.",
		ns, nil)
	descNextExpiry = prometheus.NewDesc("driftdeck_pause_next_expiry_timestamp_seconds",
		"The earliest expiry of the pauses in place, as a Unix time.",
		ns, nil)
	descUnitExpiry = prometheus.NewDesc("driftdeck_pause_expiry_timestamp_seconds",
		"A pause's expiry as a Unix time (only with --metrics-unit-names).",
		withUnit, nil)
	descConnected = prometheus.NewDesc("driftdeck_watch_connected",
		"1 while the watches of the context are connected.", []string{"context"}, nil)
	descSynced = prometheus.NewDesc("driftdeck_watch_synced",
		"1 once every watch of the context delivered its first list.", []string{"context"}, nil)
	descLastEvent = prometheus.NewDesc("driftdeck_watch_last_event_age_seconds",
		"Seconds since data last arrived from the context.", []string{"context"}, nil)
	descLists = prometheus.NewDesc("driftdeck_watch_lists_total",
		"Complete lists of units received by the context's watches, the first ones included: growth beyond one per engine means relists.",
		[]string{"context"}, nil)
	descUnreadable = prometheus.NewDesc("driftdeck_watch_unreadable",
		"1 for each resource the identity may not list (RBAC) where it was looked for (namespace \"\": every namespace); its objects are not shown.",
		[]string{"context", "what", "namespace"}, nil)
)

// Describe sends every descriptor.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descUnits, descOldest, descUnitAge, descPauses, descExpired, descNextExpiry,
		descUnitExpiry, descConnected, descSynced, descLastEvent, descLists, descUnreadable} {
		ch <- d
	}
}

type nsKey struct{ context, engine, namespace string }

type stateKey struct {
	nsKey
	state string
}

// Collect reads the store once and sends every series.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	counts := map[stateKey]int{}
	oldest := map[stateKey]time.Duration{}
	pauses := map[nsKey][2]int{} // without, with expiry
	expired := map[nsKey]int{}
	next := map[nsKey]time.Time{}
	for _, u := range c.Source.Snapshot() {
		k := nsKey{u.Key.Context, string(u.Key.Engine), u.Key.Namespace}
		for _, s := range StatesOf(u) {
			counts[stateKey{k, s}]++
		}
		if s := ageState(u); s != "" && !u.RunSince.IsZero() {
			age := now.Sub(u.RunSince)
			if sk := (stateKey{k, s}); age > oldest[sk] {
				oldest[sk] = age
			}
			if c.UnitNames {
				ch <- gauge(descUnitAge, age.Seconds(), k.context, k.engine, k.namespace, u.Key.Name, s)
			}
		}
		if p := u.Pause; p != nil {
			pc := pauses[k]
			if p.Until.IsZero() {
				pc[0]++
			} else {
				pc[1]++
				if n, ok := next[k]; !ok || p.Until.Before(n) {
					next[k] = p.Until
				}
				if p.Expired(now) {
					expired[k]++
				}
				if c.UnitNames {
					ch <- gauge(descUnitExpiry, float64(p.Until.Unix()), k.context, k.engine, k.namespace, u.Key.Name)
				}
			}
			pauses[k] = pc
		}
	}
	for k, n := range counts {
		ch <- gauge(descUnits, float64(n), k.context, k.engine, k.namespace, k.state)
	}
	for k, d := range oldest {
		ch <- gauge(descOldest, d.Seconds(), k.context, k.engine, k.namespace, k.state)
	}
	for k, pc := range pauses {
		ch <- gauge(descPauses, float64(pc[0]), k.context, k.engine, k.namespace, "false")
		ch <- gauge(descPauses, float64(pc[1]), k.context, k.engine, k.namespace, "true")
		ch <- gauge(descExpired, float64(expired[k]), k.context, k.engine, k.namespace)
		if t, ok := next[k]; ok {
			ch <- gauge(descNextExpiry, float64(t.Unix()), k.context, k.engine, k.namespace)
		}
	}
	for _, st := range c.Source.Status() {
		ch <- gauge(descConnected, boolValue(st.Connected), st.Context)
		ch <- gauge(descSynced, boolValue(st.Synced), st.Context)
		if !st.LastEvent.IsZero() {
			ch <- gauge(descLastEvent, now.Sub(st.LastEvent).Seconds(), st.Context)
		}
		ch <- prometheus.MustNewConstMetric(descLists, prometheus.CounterValue, float64(st.Lists), st.Context)
		for _, u := range st.Unreadable {
			ch <- gauge(descUnreadable, 1, st.Context, u.What, u.Namespace)
		}
	}
}

// StatesOf lists the driftdeck_units states a unit counts in.
func StatesOf(u *model.Unit) []string {
	var out []string
	switch u.Run {
	case model.Stuck:
		out = append(out, StateStuck)
	case model.Failed:
		out = append(out, StateFailed)
	case model.AwaitingApproval:
		out = append(out, StateAwaiting)
	case model.BlockedByWindow:
		out = append(out, StateBlocked)
	}
	switch {
	case u.Pause != nil && u.Pause.Until.IsZero():
		out = append(out, StatePaused)
	case u.Pause != nil:
		out = append(out, StateFrozen)
	case u.Automation == model.Suspended:
		out = append(out, StateSuspended)
	}
	if u.Sync == model.Drifted {
		out = append(out, StateDrifted)
	}
	return out
}

// ageState is the state whose age is exported, "" for units not stuck or failed.
func ageState(u *model.Unit) string {
	switch u.Run {
	case model.Stuck:
		return StateStuck
	case model.Failed:
		return StateFailed
	}
	return ""
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
