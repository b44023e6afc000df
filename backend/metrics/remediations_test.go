package metrics_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/metrics"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/policy"
	"github.com/driftdeck/driftdeck/backend/store"
)

type emptySource struct{}

func (emptySource) Snapshot() []*model.Unit       { return nil }
func (emptySource) Status() []store.ContextStatus { return nil }

// driftdeck_remediations_total, served beside the model's series as the
// agent registers them, counts each remediation by policy and outcome:
// one that could not be written is "failed", one held back by maxPerHour
// "limited"; a policy that never acted has no series (no empty labels).
func TestRemediationsAreCountedByPolicyAndOutcome(t *testing.T) {
	now := time.Now()
	var units []*model.Unit
	for _, n := range []string{"a", "b", "c"} {
		units = append(units, &model.Unit{Key: model.Key{Context: "gone", Engine: model.EngineArgoCD, Namespace: "web", Name: n},
			Argo: &model.ArgoFacts{Phase: "Running", OperationSet: true, PhaseMessage: "waiting for completion of hook batch/Job/migrate", StartedAt: now.Add(-time.Hour)}})
	}
	noCluster := func(string) (*kube.Cluster, bool) { return nil, false }
	e := &policy.Engine{
		Rules:   []policy.Rule{{Name: "hooks", When: policy.ArgoHookStuck, After: 10 * time.Minute, MaxAttempts: 3, MaxPerHour: 1}, {Name: "idle", When: policy.UpdateProgressing, After: time.Minute, MaxAttempts: 3, MaxPerHour: 5}},
		Exec:    &actions.Executor{Cluster: noCluster},
		DryExec: &actions.Executor{Cluster: noCluster, DryRun: true},
		Now:     func() time.Time { return now },
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(&metrics.Collector{Source: emptySource{}}, e)
	e.Remediate(context.Background(), units)
	err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP driftdeck_remediations_total Remediations by policy and outcome (done, dry-run, refused, failed; limited: held back by maxPerHour; exhausted: a unit reached maxAttempts, once per unit; waiting: a lock not yet old or dead enough, once per lock).
# TYPE driftdeck_remediations_total counter
driftdeck_remediations_total{outcome="failed",policy="hooks"} 1
driftdeck_remediations_total{outcome="limited",policy="hooks"} 2
`), "driftdeck_remediations_total")
	if err != nil {
		t.Error(err)
	}
}
