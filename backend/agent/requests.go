package agent

import (
	"context"

	"github.com/driftdeck/driftdeck/backend/changereq"
)

// appliersOf makes the change-request applier of each context, counting
// what each closes; none when the agent has no executor for them or may
// not write (read-only, dry run).
func (a *Agent) appliersOf() map[string]*changereq.Applier {
	e := a.RequestExec
	if e == nil {
		return nil
	}
	if e.ReadOnly || e.DryRun {
		a.logf("change requests are not applied: the agent runs read-only or as a dry run")
		return nil
	}
	out := map[string]*changereq.Applier{}
	for _, c := range a.Contexts {
		out[c] = &changereq.Applier{Context: c, Namespace: a.RequestNamespace, Exec: e, Roots: a.RootRequests, Now: a.Now, Logf: a.logf,
			Outcome: func(p changereq.Phase) { a.requests.WithLabelValues(string(p)).Inc() }}
	}
	return out
}

// applyRequests runs the appliers of the synced contexts this pass covers
// ("": every one).
func (a *Agent) applyRequests(ctx context.Context, only string, synced map[string]bool) {
	for _, c := range a.Contexts {
		ap := a.appliers[c]
		if ap == nil || !synced[c] || (only != "" && c != only) || ctx.Err() != nil {
			continue
		}
		ap.Pass(ctx)
	}
}
