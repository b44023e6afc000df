package metrics

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

// source is a fixed store: what the collector reads.
type source struct {
	units  []*model.Unit
	status []store.ContextStatus
}

func (s source) Snapshot() []*model.Unit       { return s.units }
func (s source) Status() []store.ContextStatus { return s.status }

var now = time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)

func unit(engine model.Engine, ns, name string, run model.RunState, since time.Duration) *model.Unit {
	u := &model.Unit{Key: model.Key{Context: "prod", Engine: engine, Namespace: ns, Name: name}, Run: run}
	if since > 0 {
		u.RunSince = now.Add(-since)
	}
	return u
}

func frozen(u *model.Unit, until time.Duration) *model.Unit {
	u.Pause = &model.PauseRecord{By: "alice", Reason: "INC-1", At: now.Add(-time.Hour), Until: now.Add(until)}
	return u
}

func collect(t *testing.T, c *Collector, expected string, names ...string) {
	t.Helper()
	if err := testutil.CollectAndCompare(c, strings.NewReader(expected), names...); err != nil {
		t.Error(err)
	}
}

// The watch series say per context whether the watches are connected and
// synced, how long ago data came, and how many lists arrived (relists).
func TestWatchHealthSeriesPerContext(t *testing.T) {
	c := &Collector{Now: func() time.Time { return now }, Source: source{status: []store.ContextStatus{
		{Context: "prod", Connected: true, Synced: true, LastEvent: now.Add(-3 * time.Second), Lists: 5},
		{Context: "staging", Connected: false, Synced: true, LastEvent: now.Add(-10 * time.Minute), Lists: 9, Error: "connection refused"},
		{Context: "new", Connected: false},
	}}}
	collect(t, c, `
# HELP driftdeck_watch_connected 1 while the watches of the context are connected.
# TYPE driftdeck_watch_connected gauge
driftdeck_watch_connected{context="new"} 0
driftdeck_watch_connected{context="prod"} 1
driftdeck_watch_connected{context="staging"} 0
# HELP driftdeck_watch_last_event_age_seconds Seconds since data last arrived from the context.
# TYPE driftdeck_watch_last_event_age_seconds gauge
driftdeck_watch_last_event_age_seconds{context="prod"} 3
driftdeck_watch_last_event_age_seconds{context="staging"} 600
# HELP driftdeck_watch_lists_total Complete lists of units received by the context's watches, the first ones included: growth beyond one per engine means relists.
# TYPE driftdeck_watch_lists_total counter
driftdeck_watch_lists_total{context="new"} 0
driftdeck_watch_lists_total{context="prod"} 5
driftdeck_watch_lists_total{context="staging"} 9
# HELP driftdeck_watch_synced 1 once every watch of the context delivered its first list.
# TYPE driftdeck_watch_synced gauge
driftdeck_watch_synced{context="new"} 0
driftdeck_watch_synced{context="prod"} 1
driftdeck_watch_synced{context="staging"} 1
`, "driftdeck_watch_connected", "driftdeck_watch_synced", "driftdeck_watch_last_event_age_seconds", "driftdeck_watch_lists_total")
}

// Pauses are counted with and without an expiry; the next expiry is the
// earliest of a namespace's, and one already passed counts as expired.
func TestPausesTheirNextExpiryAndThoseExpired(t *testing.T) {
	held := unit(model.EngineArgoCD, "web", "held", model.Idle, 0)
	held.Pause = &model.PauseRecord{By: "bob", Reason: "INC-2", At: now.Add(-time.Hour)}
	c := &Collector{Now: func() time.Time { return now }, Source: source{units: []*model.Unit{
		frozen(unit(model.EngineArgoCD, "web", "late", model.Idle, 0), 2*time.Hour),
		frozen(unit(model.EngineArgoCD, "web", "soon", model.Idle, 0), 30*time.Minute),
		frozen(unit(model.EngineArgoCD, "web", "over", model.Idle, 0), -time.Minute),
		held,
		frozen(unit(model.EnginePulumi, "infra", "net", model.Idle, 0), time.Hour),
	}}}
	collect(t, c, `
# HELP driftdeck_pause_next_expiry_timestamp_seconds The earliest expiry of the pauses in place, as a Unix time.
# TYPE driftdeck_pause_next_expiry_timestamp_seconds gauge
driftdeck_pause_next_expiry_timestamp_seconds{context="prod",engine="argocd",namespace="web"} `+unix(now.Add(-time.Minute))+`
driftdeck_pause_next_expiry_timestamp_seconds{context="prod",engine="pulumi",namespace="infra"} `+unix(now.Add(time.Hour))+`
# HELP driftdeck_pauses_expired Pauses whose expiry has passed and that are still in place: the agent resumes them, so this stays 0 while an agent leads.
# TYPE driftdeck_pauses_expired gauge
driftdeck_pauses_expired{context="prod",engine="argocd",namespace="web"} 1
driftdeck_pauses_expired{context="prod",engine="pulumi",namespace="infra"} 0
# HELP driftdeck_pauses driftdeck pauses recorded on units: expiring="true" for those with an expiry.
# TYPE driftdeck_pauses gauge
driftdeck_pauses{context="prod",engine="argocd",expiring="false",namespace="web"} 1
driftdeck_pauses{context="prod",engine="argocd",expiring="true",namespace="web"} 3
driftdeck_pauses{context="prod",engine="pulumi",expiring="false",namespace="infra"} 0
driftdeck_pauses{context="prod",engine="pulumi",expiring="true",namespace="infra"} 1
`, "driftdeck_pause_next_expiry_timestamp_seconds", "driftdeck_pauses_expired", "driftdeck_pauses")
}

func unix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// Per state and namespace; the oldest stuck or failed age per namespace.
func TestUnitsPerStateAndTheOldestAge(t *testing.T) {
	drifted := unit(model.EngineHelmRelease, "apps", "ui", model.Stuck, 40*time.Minute)
	drifted.Sync = model.Drifted
	suspended := unit(model.EngineKustomization, "apps", "infra", model.Idle, 0)
	suspended.Automation = model.Suspended
	c := &Collector{Now: func() time.Time { return now }, Source: source{units: []*model.Unit{
		drifted,
		unit(model.EngineHelmRelease, "apps", "api", model.Stuck, 10*time.Minute),
		unit(model.EngineTerraform, "infra", "vpc", model.Failed, 5*time.Minute),
		unit(model.EngineTerraform, "infra", "dns", model.AwaitingApproval, time.Minute),
		unit(model.EngineArgoCD, "web", "site", model.BlockedByWindow, time.Minute),
		suspended,
	}}}
	collect(t, c, `
# HELP driftdeck_units_oldest_state_age_seconds How long the oldest unit has been in the state (stuck or failed), per namespace.
# TYPE driftdeck_units_oldest_state_age_seconds gauge
driftdeck_units_oldest_state_age_seconds{context="prod",engine="helmrelease",namespace="apps",state="stuck"} 2400
driftdeck_units_oldest_state_age_seconds{context="prod",engine="terraform",namespace="infra",state="failed"} 300
# HELP driftdeck_units Units per state (stuck, failed, paused, frozen: paused with an expiry, awaiting approval, blocked by window, drifted, suspended); a unit may count in several states.
# TYPE driftdeck_units gauge
driftdeck_units{context="prod",engine="argocd",namespace="web",state="blocked by window"} 1
driftdeck_units{context="prod",engine="helmrelease",namespace="apps",state="drifted"} 1
driftdeck_units{context="prod",engine="helmrelease",namespace="apps",state="stuck"} 2
driftdeck_units{context="prod",engine="kustomization",namespace="apps",state="suspended"} 1
driftdeck_units{context="prod",engine="terraform",namespace="infra",state="awaiting approval"} 1
driftdeck_units{context="prod",engine="terraform",namespace="infra",state="failed"} 1
`, "driftdeck_units", "driftdeck_units_oldest_state_age_seconds")
}

// Without UnitNames no series names a unit, however many units there are:
// the series count follows namespaces and states, not units. With it, each
// stuck or failed unit and each expiring pause has its own series.
func TestNoUnitLabelsUnlessAsked(t *testing.T) {
	var units []*model.Unit
	for i := range 500 {
		units = append(units, frozen(unit(model.EngineArgoCD, "web", "app-"+strconv.Itoa(i), model.Stuck, time.Hour), time.Hour))
	}
	bounded := &Collector{Now: func() time.Time { return now }, Source: source{units: units}}
	// driftdeck_units (stuck, frozen), the oldest age, pauses (with and
	// without expiry), expired, the next expiry.
	if n := testutil.CollectAndCount(bounded); n != 7 {
		t.Errorf("500 units in one namespace gave %d series, want 7", n)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(bounded)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if l.GetName() == "unit" {
					t.Fatalf("%s has a unit label without UnitNames", f.GetName())
				}
			}
		}
	}
	named := &Collector{Now: func() time.Time { return now }, Source: source{units: units}, UnitNames: true}
	if got := testutil.CollectAndCount(named, "driftdeck_unit_state_age_seconds"); got != 500 {
		t.Errorf("with UnitNames: %d per-unit age series, want 500", got)
	}
	if got := testutil.CollectAndCount(named, "driftdeck_pause_expiry_timestamp_seconds"); got != 500 {
		t.Errorf("with UnitNames: %d per-unit expiry series, want 500", got)
	}
}
