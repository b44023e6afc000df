package ui

import (
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	engine "github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
	diffview "github.com/driftdeck/driftdeck/views/diff"
)

// diffScreen is what would change for one unit, kept current: the diff of
// an Application (computed again when the app is compared again), of a
// Kustomization (again when it attempts another revision) or the readable
// plan of a Terraform (again when another plan is pending).
type diffScreen struct {
	ownContext // the diff runs until the screen closes
	unitKey    model.Key
	v          *diffview.Model
	compared   string // what the shown diff belongs to: see diffMark
	// revision is what an approval binds to: the app's sync revision, or
	// the id of the plan shown.
	revision string
	inflight bool
	stale    bool
	// only narrows the diff to one resource (opened from the resource tree).
	only *engine.ObjectKey
}

// diffOf opens the diff of a unit.
type diffOf struct{ unit *model.Unit }

func (o diffOf) open(a *App) tea.Cmd {
	u := o.unit
	if u == nil {
		return nil
	}
	mark, ok := diffMark(u)
	if !ok {
		a.toastError("diffs are for Argo CD Applications, Flux Kustomizations and HelmReleases, Terraforms and root modules")
		return nil
	}
	s := &diffScreen{ownContext: newOwnContext(a), unitKey: u.Key, v: diffview.New(a.theme), compared: mark}
	a.push(s)
	return s.diffCmd(a)
}

// resourceDiffOf opens the part of an Application's diff about one of its
// resources; approving it syncs that resource only.
type resourceDiffOf struct {
	unit   *model.Unit
	object engine.ObjectKey
}

func (o resourceDiffOf) open(a *App) tea.Cmd {
	u, k := o.unit, o.object
	if u == nil {
		return nil
	}
	mark, _ := diffMark(u)
	s := &diffScreen{ownContext: newOwnContext(a), unitKey: u.Key, v: diffview.New(a.theme), compared: mark, only: &k}
	a.push(s)
	return s.diffCmd(a)
}

// diffMark is what, when it moves, makes the shown diff out of date: an
// app's last comparison, a Kustomization's attempted revision, a Terraform's
// pending plan. ok is false for units without a diff.
func diffMark(u *model.Unit) (mark string, ok bool) {
	switch {
	case u.Argo != nil:
		return u.Argo.ReconciledAt.String(), true
	case u.Tofu != nil:
		return u.Tofu.PendingPlan, true
	case u.Root != nil:
		// A new plan saved, or the state it was made against moved.
		if p := u.Root.Plan; p != nil {
			return fmt.Sprint(p.ID, " ", p.Applied, " ", u.Root.Serial), true
		}
		return fmt.Sprint(u.Root.Serial), true
	case u.Key.Engine == model.EngineKustomization && u.Flux != nil:
		return u.Flux.LastAttempted, true
	case u.Key.Engine == model.EngineHelmRelease && u.Flux != nil:
		// A new spec, attempt or release: the chart, values or release
		// compared may have moved.
		return fmt.Sprint(u.Flux.ObservedGen, " ", u.Flux.LastAttempted, " ", u.Flux.LastApplied), true
	}
	return "", false
}

func (s *diffScreen) setSize(w, h int)                { s.v.SetSize(w, h) }
func (s *diffScreen) setTheme(t *themes.Theme)        { s.v.SetTheme(t) }
func (s *diffScreen) view(_ *App, _ time.Time) string { return s.v.View() }

func (s *diffScreen) diffCmd(a *App) tea.Cmd {
	if s.inflight {
		s.stale = true
		return nil
	}
	s.inflight, s.stale = true, false
	be, ctx, k := a.opts.Backend, s.ctx, s.unitKey
	return func() tea.Msg {
		res, err := be.Diff(ctx, k)
		return diffMsg{from: s, result: res, err: err}
	}
}

func (s *diffScreen) update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case diffMsg:
		if msg.from != s {
			return nil // another screen's, or one closed before its diff returned
		}
		s.inflight = false
		if msg.err != nil {
			s.v.SetError(msg.err)
		} else {
			report, source := msg.result.Report, msg.result.Source
			if s.only != nil {
				report, source = report.Only(*s.only), s.only.String()+" only · "+source
			}
			s.v.SetReport(report, msg.result.Revision)
			s.v.SetSource(source)
			s.v.SetWarnings(msg.result.Warnings)
			s.revision = msg.result.SyncRevision
		}
		if s.stale {
			return s.diffCmd(a)
		}
	case unitsChangedMsg:
		// Computed again only when what the diff belongs to moved.
		u := a.unit(s.unitKey)
		if !msg.changed[s.unitKey] || u == nil {
			return nil
		}
		if mark, ok := diffMark(u); ok && mark != s.compared {
			s.compared = mark
			return s.diffCmd(a)
		}
	case tea.KeyPressMsg:
		return s.press(a, msg)
	}
	return nil
}

func (s *diffScreen) press(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k, v := a.keys, s.v
	if a.scrollKey(msg, v.Scroll, v.Page()) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back, k.Quit):
		a.close(s)
	case key.Matches(msg, k.NextObject):
		v.NextObject(1)
	case key.Matches(msg, k.PrevObject):
		v.NextObject(-1)
	case key.Matches(msg, k.SideBySide):
		v.ToggleSideBySide()
	case key.Matches(msg, k.Wrap):
		v.ToggleWrap()
	case key.Matches(msg, k.Refresh):
		return s.diffCmd(a)
	case key.Matches(msg, k.Approve, k.Sync):
		return s.approve(a)
	case key.Matches(msg, k.Replan) && s.unitKey.Engine == model.EngineRoot:
		if u := a.unit(s.unitKey); u != nil {
			return a.planRoot(u)
		}
	}
	return nil
}

// approve asks to sync exactly what the diff shows: the sync is bound to
// the revision the diff was computed against and refused if the app moved
// on; a Terraform's approval names the id of the plan shown.
func (s *diffScreen) approve(a *App) tea.Cmd {
	if !s.approvable() {
		a.toastError("a Flux unit applies on its own at each interval: refresh (" + a.keys.Refresh.Help().Key + " on its detail) requests a reconcile now")
		return nil
	}
	if s.v.Report() == nil {
		a.toastError("nothing to approve yet: the diff is still being computed")
		return nil
	}
	u := a.unit(s.unitKey)
	if u == nil {
		a.toastError(errGone(s.unitKey).Error())
		return nil
	}
	if u.Root != nil {
		// The plan shown is what is applied, by its id; the backend
		// refuses it once applied, or when a newer one was saved.
		if r := s.v.Report(); r.Modified+r.Added+r.Removed == 0 {
			a.toastError("plan " + s.revision + " changes nothing")
			return nil
		}
		summary := ""
		if p := u.Root.Plan; p != nil && p.ID == s.revision {
			summary = p.Summary
		}
		return a.approveRoot(s.unitKey, s.revision, summary)
	}
	if o := s.only; o != nil {
		one := actions.Resource{Group: o.Group, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
		return a.startRequest(actions.Request{Kind: actions.Sync, Key: s.unitKey, Revision: s.revision, Resources: []actions.Resource{one}}, s)
	}
	return a.startRequest(actions.Request{Kind: actions.Approve, Key: s.unitKey, Revision: s.revision}, s)
}

// approvable: the unit's controller waits for an approval of what the
// diff shows (an Argo CD sync, a Terraform plan); a Flux unit applies on
// its own.
func (s *diffScreen) approvable() bool {
	return s.unitKey.Engine == model.EngineRoot || slices.Contains(actions.KindsFor(s.unitKey.Engine), actions.Approve)
}

func (s *diffScreen) keyHelp(a *App) string {
	k := a.keys
	keys := bindings(k.Back, k.Down, k.Up, k.NextObject, k.PrevObject, k.SideBySide, k.Refresh)
	if s.approvable() {
		keys = append(keys, k.Approve)
	}
	if s.unitKey.Engine == model.EngineRoot {
		plan := k.Replan
		plan.SetHelp(plan.Help().Key, "plan again")
		keys = append(keys, plan)
	}
	return a.wrapHint(s.v.Wrapping(), s.v.Cut()) + a.keyHints(keys)
}
