package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/views/detail"
)

// actionKey handles the keys that act on units, the same on the list and
// on a detail screen. It reports whether the key was one of them.
func (a *App) actionKey(msg tea.KeyPressMsg, from screen) (tea.Cmd, bool) {
	k := a.keys
	switch {
	case key.Matches(msg, k.Diff):
		u := a.cursorUnit(from)
		if u != nil && u.Key.Engine == model.EnginePulumi {
			return a.open(previewOf{u}), true
		}
		return a.open(diffOf{u}), true
	case key.Matches(msg, k.Drift):
		return a.openDriftCheck(a.cursorUnit(from)), true
	case key.Matches(msg, k.Resources):
		return a.open(resourcesOf{a.cursorUnit(from)}), true
	case key.Matches(msg, k.Actions):
		units, ok := a.singleTarget(from, "the actions menu is for one unit")
		if !ok {
			return nil, true
		}
		return a.open(actionMenuOf{units[0]}), true
	case key.Matches(msg, k.RefreshWithSource):
		units, ok := a.singleTarget(from, "reconcile with source acts on one unit")
		if !ok {
			return nil, true
		}
		return a.startWithSource(units[0], from), true
	case key.Matches(msg, k.Freeze):
		return a.startBulk(actions.Pause), true
	case key.Matches(msg, k.Thaw):
		return a.startBulk(actions.Resume), true
	}
	for _, s := range specs() {
		if b, ok := a.binding(s); ok && key.Matches(msg, b) {
			units, ok := a.targets(from, s)
			if !ok {
				return nil, true
			}
			return a.startKind(s.Kind, from, units), true
		}
	}
	return nil, false
}

// targets is the one rule for what a key acts on: on the list, the marked
// units when some are marked (a key that does not work in bulk says so
// rather than act on the cursor row), else the row under the cursor; on a
// detail screen, its unit.
func (a *App) targets(from screen, s actions.Spec) ([]*model.Unit, bool) {
	if !s.Bulkable {
		return a.singleTarget(from, string(s.Kind)+" acts on one unit")
	}
	if t, ok := from.(targeting); ok {
		if marked := t.marked(); len(marked) > 0 {
			return marked, true
		}
		if units, ok := a.parentTargets(t); ok {
			return units, len(units) > 0
		}
	}
	u := a.cursorUnit(from)
	return []*model.Unit{u}, u != nil
}

// parentTargets are the children of the tree's parent row under the
// cursor, what the keys that work in bulk act on there; ok is false on any
// other row.
func (a *App) parentTargets(t targeting) ([]*model.Unit, bool) {
	parent, children, ok := t.parentTargets()
	if ok && len(children) == 0 {
		a.toastError(parent.Key.Ref() + ": no child is shown to act on")
	}
	return children, ok
}

func (a *App) singleTarget(from screen, why string) ([]*model.Unit, bool) {
	if t, ok := from.(targeting); ok {
		if marked := t.marked(); len(marked) > 0 {
			a.toastError(fmt.Sprintf("%d marked: %s, and the marks would not be used; esc clears them (keys that act on the marks: %s)",
				len(marked), why, strings.Join(a.bulkKeys(marked), " ")))
			return nil, false
		}
	}
	u := a.cursorUnit(from)
	return []*model.Unit{u}, u != nil
}

// cursorUnit is the unit the user is looking at on a screen.
func (a *App) cursorUnit(from screen) *model.Unit {
	if t, ok := from.(targeting); ok {
		return t.cursorUnit()
	}
	return nil
}

// startKind starts an action on its targets. What is not possible now is
// said at once, before any form: read-only mode, an engine without this
// action, the unit's state (as the backend's availability says).
func (a *App) startKind(kind actions.Kind, from screen, units []*model.Unit) tea.Cmd {
	s := specOf(kind)
	if len(units) == 1 && units[0].Key.Engine == model.EngineRoot {
		// A plan writes no state: it runs in read-only mode too.
		return a.rootKind(kind, units[0])
	}
	if a.refusedReadOnly(string(kind)) {
		return nil
	}
	var able []*model.Unit
	for _, u := range units {
		if s.Knows(u.Key.Engine) {
			able = append(able, u)
		}
	}
	if len(able) == 0 {
		a.toastError(fmt.Sprintf("%s is not an action of %s units", kind, engineList(units)))
		return nil
	}

	if len(units) > 1 || isMarked(from) || isParentRow(from) {
		return a.openBulk(kind, units)
	}
	u := units[0]
	if _, cached := a.avail[u.Key]; !cached {
		// Ask first, then continue: a form opens only for what is possible.
		return a.availCmd(u, from, func() tea.Cmd { return a.startChecked(kind, from, u) })
	}
	return a.startChecked(kind, from, u)
}

// startWithSource reconciles a Flux or Terraform unit after its source, as
// `flux reconcile --with-source` and the CLI's refresh --with-source do.
// It writes a second object, so it is confirmed with its plan, which names
// the source requested first.
func (a *App) startWithSource(u *model.Unit, from screen) tea.Cmd {
	if u == nil || a.refusedReadOnly("reconcile with source") {
		return nil
	}
	if why := withSourceWhyNot(u); why != "" {
		a.toastError("reconcile with source " + u.Key.Ref() + ": " + why)
		return nil
	}
	start := func() tea.Cmd {
		if av, ok := a.availabilityOf(u.Key, actions.Refresh); ok && !av.Enabled {
			a.toastError("reconcile with source " + u.Key.Ref() + ": " + av.WhyNot)
			return nil
		}
		return a.startRequest(actions.Request{Kind: actions.Refresh, Key: u.Key, WithSource: true}, from)
	}
	if _, cached := a.avail[u.Key]; !cached {
		return a.availCmd(u, from, start)
	}
	return start()
}

// withSourceWhyNot says why a unit has no source to reconcile first, ""
// when it has one: only Flux and Terraform units name one.
func withSourceWhyNot(u *model.Unit) string {
	f := u.FluxRuntime()
	switch {
	case f == nil:
		return "only Flux and Terraform units read a source"
	case f.Source.Name == "":
		return "the unit names no source"
	}
	return ""
}

func isMarked(from screen) bool {
	t, ok := from.(targeting)
	return ok && len(t.marked()) > 0
}

func isParentRow(from screen) bool {
	t, ok := from.(targeting)
	if !ok {
		return false
	}
	_, _, parent := t.parentTargets()
	return parent
}

// startChecked starts an action on one unit whose availability is known.
func (a *App) startChecked(kind actions.Kind, from screen, u *model.Unit) tea.Cmd {
	av, known := a.availabilityOf(u.Key, kind)
	if known && !av.Enabled && !av.Requestable {
		a.toastError(string(kind) + " " + u.Key.Ref() + ": " + av.WhyNot)
		return nil
	}
	req := actions.Request{Kind: kind, Key: u.Key}
	switch kind {
	case actions.Unlock:
		return a.startUnlock(u)
	case actions.Rollback:
		p, ok := from.(historyPicker)
		if !ok {
			a.toastError("rollback: open the unit (enter), pick an entry on its History tab, then press " + a.keys.Rollback.Help().Key)
			return nil
		}
		id, ok := p.pickedHistory()
		if !ok {
			p.showHistory()
			a.toastError("rollback: pick the entry to roll back to, then press " + a.keys.Rollback.Help().Key)
			return nil
		}
		req.HistoryID = id
	}
	if known && !av.Enabled {
		// The user may not write it, but may ask for it.
		return a.startAsk(req, av.WhyNot)
	}
	return a.startRequest(req, from)
}

func engineList(units []*model.Unit) string {
	var es []string
	for _, u := range units {
		if !slices.Contains(es, string(u.Key.Engine)) {
			es = append(es, string(u.Key.Engine))
		}
	}
	return strings.Join(es, " or ")
}

// startBulk opens a freeze (pause) or thaw (resume) of the marked units, or
// of every shown unit when none is marked.
func (a *App) startBulk(kind actions.Kind) tea.Cmd {
	if a.refusedReadOnly(string(kind)) {
		return nil
	}
	l := a.list().m
	units := l.Marked()
	if len(units) == 0 {
		if children, ok := a.parentTargets(a.list()); ok {
			if len(children) == 0 {
				return nil
			}
			units = children
		} else {
			units = actionable(l.Shown())
		}
	}
	if len(units) == 0 {
		a.toastError("nothing to " + string(kind) + ": no unit is shown")
		return nil
	}
	return a.openBulk(kind, units)
}

// actionable drops the rows no action reaches (an ApplicationSet's), so
// that acting on everything shown lists only what it can act on.
func actionable(units []*model.Unit) []*model.Unit {
	var out []*model.Unit
	for _, u := range units {
		if len(actions.KindsFor(u.Key.Engine)) > 0 {
			out = append(out, u)
		}
	}
	return out
}

// openBulk confirms one action on many units, naming each, and those the
// list does not show.
func (a *App) openBulk(kind actions.Kind, units []*model.Unit) tea.Cmd {
	d := a.newDialog(dlgBulk, kind, units)
	shown := map[model.Key]bool{}
	for _, u := range a.list().m.Shown() {
		shown[u.Key] = true
	}
	for _, u := range units {
		if !shown[u.Key] {
			d.hidden = append(d.hidden, u)
		}
	}
	a.push(d)
	return tea.Batch(d.setFocus(0), a.readOwnerWrites(d.id, kind, units), d.requestBulkPlans(a))
}

// actionMenuOf opens the menu of a unit's actions.
type actionMenuOf struct{ unit *model.Unit }

func (o actionMenuOf) open(a *App) tea.Cmd {
	u := o.unit
	if len(actions.KindsFor(u.Key.Engine)) == 0 {
		// An empty menu would say nothing: say why there is none.
		why := u.Key.Ref() + ": " + detail.NoActions(u.Key.Engine)
		if u.Key.Engine == model.EngineApplicationSet {
			why += " (" + a.keys.Tree.Help().Key + " in the list shows them under it)"
		}
		a.toastError(why)
		return nil
	}
	d := &dialog{id: a.nextID(), kind: dlgMenu, units: []*model.Unit{u}, avail: a.avail[u.Key]}
	a.push(d)
	return a.availCmd(u, nil, nil)
}

// bulkKeys are the keys that act on the marks, for units of these engines.
func (a *App) bulkKeys(units []*model.Unit) []string {
	var out []string
	for _, s := range specs() {
		b, ok := a.binding(s)
		if !s.Bulkable || !ok || !knowsAny(s, units) {
			continue
		}
		out = append(out, b.Help().Key)
	}
	return out
}

func knowsAny(s actions.Spec, units []*model.Unit) bool {
	for _, u := range units {
		if s.Knows(u.Key.Engine) {
			return true
		}
	}
	return false
}

// actionHints are the action keys of the unit's engine, only those
// possible now once the backend said so, or that the user may ask for.
func (a *App) actionHints(u *model.Unit) []key.Binding {
	if u == nil {
		return nil
	}
	known, checked := a.avail[u.Key]
	var out []key.Binding
	for _, s := range specs() {
		b, ok := a.binding(s)
		if !ok || !s.Knows(u.Key.Engine) {
			continue
		}
		av, found := a.availabilityOf(u.Key, s.Kind)
		if checked && len(known) > 0 && (!found || !av.Enabled && !av.Requestable) {
			continue
		}
		if found && !av.Enabled {
			// Offered as what it does: a request for it.
			b.SetHelp(b.Help().Key, "ask: "+b.Help().Desc)
		}
		if u.Key.Engine == model.EngineRoot && s.Kind == actions.Replan {
			b.SetHelp(b.Help().Key, "plan")
		}
		out = append(out, b)
	}
	return out
}

// binding is the key of an action kind, if the table gives it one.
func (a *App) binding(s actions.Spec) (key.Binding, bool) {
	if s.Key == "" {
		return key.Binding{}, false
	}
	if a.specKeys == nil {
		a.specKeys = map[string]key.Binding{}
		for _, sp := range specs() {
			if b, ok := a.keys.Binding(sp.Key); ok && sp.Key != "" {
				a.specKeys[sp.Key] = b
			}
		}
	}
	b, ok := a.specKeys[s.Key]
	return b, ok
}

// refusedReadOnly says, in --read-only, that what was asked writes, before
// anything is typed; the backend refuses it anyway.
func (a *App) refusedReadOnly(what string) bool {
	if a.opts.ReadOnly {
		a.toastError(what + ": read-only mode (--read-only): driftdeck writes nothing")
	}
	return a.opts.ReadOnly
}
