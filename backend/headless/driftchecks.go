package headless

import (
	"context"
	"time"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/driftmark"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// driftSchedule checks the fleet's Stacks as d says, each verdict marked
// in the fleet's model (so /metrics counts the drifted ones).
func driftSchedule(d *config.DriftChecks, f *fleet.Fleet, h Options) *driftmark.Schedule {
	ops := &stackops.Ops{Cluster: f.Cluster, Programs: h.Config.Stacks, Audit: h.Audit, ReadOnly: true, DriftChecked: f.RecordDrift}
	return &driftmark.Schedule{
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
