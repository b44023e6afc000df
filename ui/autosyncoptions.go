package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// addAutoSyncOptions is the resume of an Argo CD Application whose
// automation was turned off outside driftdeck: with no pause record to
// restore, the dialog enables auto-sync with the policy the user ticks
// (self-heal, prune; both off until ticked), and the plan shows it.
func (d *dialog) addAutoSyncOptions(a *App, u *model.Unit) {
	if d.req.Kind != actions.Resume || u.Argo == nil || u.Pause != nil || u.Argo.AutoSync {
		return
	}
	d.req.AutoSync = &actions.AutoSyncPolicy{}
	add := func(label string, field *bool) {
		opt := &dialogOption{label: label, on: *field}
		opt.toggled = func(on bool) tea.Cmd {
			*field = on
			d.plan = nil
			return d.requestPlan(a)
		}
		d.options = append(d.options, opt)
	}
	add("self-heal — revert live drift too (automated.selfHeal)", &d.req.AutoSync.SelfHeal)
	add("prune — delete resources no longer in the source (automated.prune)", &d.req.AutoSync.Prune)
}
