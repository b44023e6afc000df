package ui

import (
	"cmp"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// availCache holds what each unit can do now, as the backend last said; a
// batch that changes a unit forgets its entry, so the next key asks again.
type availCache map[model.Key][]model.Availability

func (c availCache) forget(changed map[model.Key]bool, present unitsByKey) {
	for k := range c {
		if changed[k] || present.get(k) == nil {
			delete(c, k)
		}
	}
}

// availMsg is the backend's answer; then, when set, continues what the key
// that asked was doing, provided the screen that asked is still on top.
type availMsg struct {
	id    int
	key   model.Key
	avail []model.Availability
	from  screen
	then  func() tea.Cmd
}

// pendingKey is a key waiting for the availability it needs: the keys typed
// meanwhile are held for the form it may open, never given to the screen
// below it.
type pendingKey struct {
	id   int
	what string // what is being checked, for the status line
	held []tea.KeyPressMsg
}

// availCmd asks what u can do now; then runs once the answer is in.
func (a *App) availCmd(u *model.Unit, from screen, then func() tea.Cmd) tea.Cmd {
	if u == nil {
		return nil
	}
	id := 0
	if then != nil {
		id = a.nextID()
		a.pending = &pendingKey{id: id, what: "checking what " + u.Key.Ref() + " can do now … (esc gives up)"}
	}
	be, ctx, k := a.opts.Backend, a.opts.Context, u.Key
	return func() tea.Msg { return availMsg{id: id, key: k, avail: be.Available(ctx, u), from: from, then: then} }
}

func (a *App) onAvail(m availMsg) tea.Cmd {
	unsure := unsureWhy(m.avail) // no answer to keep: the next key asks again
	if a.unit(m.key) != nil && unsure == "" {
		a.avail[m.key] = m.avail
	}
	cmds := []tea.Cmd{a.broadcast(m)}
	if p := a.pending; p != nil && m.id == p.id {
		a.pending = nil
		if a.top() != m.from {
			return cmds[0]
		}
		if unsure != "" {
			a.toastError(m.key.Ref() + ": " + unsure + " (the key asks again)")
			return cmds[0]
		}
		before := a.top()
		cmds = append(cmds, m.then())
		if a.top() != before { // a form opened: what was typed is for it
			for _, k := range p.held {
				cmds = append(cmds, a.onKey(k))
			}
		}
	}
	return tea.Batch(cmds...)
}

// holdKey keeps a key typed while an action waits for its availability;
// esc gives up waiting.
func (a *App) holdKey(msg tea.KeyPressMsg) {
	if msg.String() == "esc" {
		a.pending = nil
		return
	}
	a.pending.held = append(a.pending.held, msg)
}

// availabilityOf finds one kind in a unit's cached availability.
func (a *App) availabilityOf(k model.Key, kind actions.Kind) (model.Availability, bool) {
	for _, av := range a.avail[k] {
		if av.Kind == kind {
			return av, true
		}
	}
	return model.Availability{}, false
}

// wrote forgets what a unit could do before a write to it: the next key
// asks again, once the change has reached the model.
func (a *App) wrote(k model.Key) { delete(a.avail, k) }

// prefetch asks what the cursor row can do before a key needs it, so that
// the footer offers only what is possible and a key answers at once.
func (a *App) prefetch(u *model.Unit) tea.Cmd {
	if u == nil {
		return nil
	}
	if _, ok := a.avail[u.Key]; ok {
		return nil
	}
	return a.availCmd(u, nil, nil)
}

// unsureWhy is what kept a check from being made; "" when it was made. Such
// an answer is not kept (a key waiting on it says why), so a blip at start
// does not leave the row's actions refused for the session.
func unsureWhy(avail []model.Availability) string {
	for _, av := range avail {
		if av.Unsure {
			return cmp.Or(av.WhyNot, "the check could not be made")
		}
	}
	return ""
}
