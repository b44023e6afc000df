package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// availCache holds what each unit can do now, as the backend last said; a
// batch that changes a unit forgets its entry, so the next key asks again.
type availCache map[model.Key][]actions.Availability

func (c availCache) forget(changed map[model.Key]bool, present map[model.Key]*model.Unit) {
	for k := range c {
		if changed[k] || present[k] == nil {
			delete(c, k)
		}
	}
}

// availMsg is the backend's answer; then, when set, continues what the key
// that asked was doing, provided the screen that asked is still on top.
type availMsg struct {
	key   model.Key
	avail []actions.Availability
	from  screen
	then  func() tea.Cmd
}

// availCmd asks what u can do now; then runs once the answer is in.
func (a *App) availCmd(u *model.Unit, from screen, then func() tea.Cmd) tea.Cmd {
	if u == nil {
		return nil
	}
	be, ctx, k := a.opts.Backend, a.opts.Context, u.Key
	return func() tea.Msg { return availMsg{key: k, avail: be.Available(ctx, u), from: from, then: then} }
}

func (a *App) onAvail(m availMsg) tea.Cmd {
	if a.units[m.key] != nil {
		a.avail[m.key] = m.avail
	}
	cmd := a.broadcast(m)
	if m.then != nil && a.top() == m.from {
		return tea.Batch(cmd, m.then())
	}
	return cmd
}

// availabilityOf finds one kind in a unit's cached availability.
func (a *App) availabilityOf(k model.Key, kind actions.Kind) (actions.Availability, bool) {
	for _, av := range a.avail[k] {
		if av.Kind == kind {
			return av, true
		}
	}
	return actions.Availability{}, false
}
