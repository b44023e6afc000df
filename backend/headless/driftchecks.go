package headless

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/driftmark"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// driftSchedule checks the fleet's Stacks as d says, each verdict marked
// in the fleet's model (so /metrics counts the drifted ones).
func driftSchedule(d *config.DriftChecks, f *fleet.Fleet, h Options) *driftmark.Schedule {
	ops := &stackops.Ops{Cluster: f.Cluster, Programs: h.Config.Stacks, Audit: h.Audit, ReadOnly: true, DriftChecked: f.RecordDrift}
	return &driftmark.Schedule{
		Engine: model.EnginePulumi,
		Counter: prometheus.CounterOpts{
			Name: "driftdeck_drift_checks_total",
			Help: "Scheduled Stack drift checks (pulumi refresh --preview-only), by result: clean, drifted or failed.",
		},
		Every: time.Duration(d.Every), Jitter: time.Duration(d.Jitter), Concurrency: d.Concurrency, Log: h.Log,
		Check: func(ctx context.Context, k model.Key) (int, error) {
			rep, err := ops.DriftCheck(ctx, k, nil)
			if err != nil {
				return 0, err
			}
			return len(rep.Result.Drifted()), nil
		},
	}
}

// rootPlanSchedule plans the fleet's root modules as d says: each plan is
// saved (never applied) and read into the model, drifted when it changes
// something (so /metrics counts it).
func rootPlanSchedule(d *config.DriftChecks, f *fleet.Fleet, h Options) *driftmark.Schedule {
	return &driftmark.Schedule{
		Engine: model.EngineRoot,
		Counter: prometheus.CounterOpts{
			Name: "driftdeck_root_plans_total",
			Help: "Scheduled root module plans (tofu plan -detailed-exitcode, saved, never applied), by result: clean, drifted or failed.",
		},
		Every: time.Duration(d.Every), Jitter: time.Duration(d.Jitter), Concurrency: d.Concurrency, Log: h.Log,
		Check: func(ctx context.Context, k model.Key) (int, error) {
			r, tofu, ok := f.Root(k)
			if !ok {
				return 0, errors.New("not a root module the agent reads")
			}
			defer f.RereadRoot(k)
			saved, err := tofu.Plan(ctx, r, "driftdeck agent ("+rootmod.LocalIdentity()+")", 0, diff.Options{})
			if err != nil {
				return 0, err
			}
			return saved.Plan.Changed(), nil
		},
	}
}
