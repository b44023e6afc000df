package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// addSyncOptions offers the choices of an Argo CD sync (or approval, which
// syncs) as boxes in its dialog: prune, force, apply out-of-sync only and
// Argo CD's dry run. Each tick plans again, so the plan shown is the one
// the write is bound to.
func (d *dialog) addSyncOptions(a *App) {
	if d.req.Key.Engine != model.EngineArgoCD || (d.req.Kind != actions.Sync && d.req.Kind != actions.Approve) {
		return
	}
	add := func(label, detail string, field *bool) {
		opt := &dialogOption{label: label + " — " + detail, on: *field} // one line each: the plan needs the room
		opt.toggled = func(on bool) tea.Cmd {
			*field = on
			d.plan = nil // what was shown no longer is what would be written
			return d.requestPlan(a)
		}
		d.options = append(d.options, opt)
	}
	r := &d.req
	add("prune", "delete resources no longer in the source (operation.sync.prune)", &r.Prune)
	add("force", "replace what cannot be patched: delete and re-create (syncStrategy.hook.force)", &r.Force)
	add("apply out-of-sync only", "skip the resources already in sync (syncOptions ApplyOutOfSyncOnly=true)", &r.ApplyOutOfSyncOnly)
	add("Argo CD dry run", "the controller runs the sync and applies nothing (operation.sync.dryRun)", &r.SyncDryRun)
}
