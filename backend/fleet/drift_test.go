package fleet

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/driftdeck/driftdeck/backend/metrics"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
)

// A drift check that found drift marks the in-sync Stack drifted, in the
// model and in /metrics, until the Stack applies another revision; one
// that found nothing leaves it in sync with the check's time.
func TestRecordedDriftMarksTheStackUntilItApplies(t *testing.T) {
	f := New(Options{})
	k := model.Key{Context: "prod", Engine: model.EnginePulumi, Namespace: "infra", Name: "analytics"}
	f.Store.Put(&model.Unit{Key: k, Kind: "Stack", Applied: "main@sha1:1a2b", Sync: model.InSync, SyncNative: "Ready", Health: model.Healthy})
	drift := pulumirun.Result{Steps: []pulumirun.Step{
		{Op: pulumirun.OpSame, Type: "pulumi:index:Stash", Name: "events"},
		{Op: pulumirun.OpUpdate, Type: "pulumi:pulumi:StackReference", Name: "organization/network/prod"},
	}}
	at := time.Date(2026, 12, 5, 14, 2, 7, 0, time.UTC)
	f.RecordDrift(k, drift, at)

	u, _ := f.Store.Get(k)
	if u.Sync != model.Drifted || !strings.Contains(u.SyncNative, "1 resource(s) changed out of band") {
		t.Fatalf("after a check that found drift: %s (%s); want drifted", u.Sync, u.SyncNative)
	}
	if u.Drift == nil || strings.Join(u.Drift.Resources, ",") != "update pulumi:pulumi:StackReference organization/network/prod" {
		t.Fatalf("drift mark %+v; want the StackReference", u.Drift)
	}
	series := `# HELP driftdeck_units Units per state (stuck, failed, paused, frozen: paused with an expiry, awaiting approval, blocked by window, drifted, suspended); a unit may count in several states.
# TYPE driftdeck_units gauge
driftdeck_units{context="prod",engine="pulumi",namespace="infra",state="drifted"} 1
`
	if err := testutil.CollectAndCompare(&metrics.Collector{Source: f.Store}, strings.NewReader(series), "driftdeck_units"); err != nil {
		t.Errorf("/metrics: %v", err)
	}

	f.Store.Put(&model.Unit{Key: k, Kind: "Stack", Applied: "main@sha1:3c4d", Sync: model.InSync, SyncNative: "Ready", Health: model.Healthy})
	if u, _ := f.Store.Get(k); u.Sync != model.InSync || u.Drift != nil {
		t.Errorf("after the Stack applied again: %s, mark %+v; want in sync and no mark", u.Sync, u.Drift)
	}

	f.RecordDrift(k, pulumirun.Result{Steps: drift.Steps[:1]}, at.Add(time.Hour))
	if u, _ := f.Store.Get(k); u.Sync != model.InSync || u.Drift == nil || !strings.HasPrefix(u.Drift.String(), "no drift") {
		t.Errorf("after a check that found nothing: %s, mark %v; want in sync, checked", u.Sync, u.Drift)
	}
}
