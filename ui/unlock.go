package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// unstickPlanMsg answers the plan request id of an unlock dialog.
type unstickPlanMsg struct {
	id   int
	plan *stackops.Unstick
	err  error
}

func (m unstickPlanMsg) runID() int { return m.id }
func (m unstickPlanMsg) release() {
	if m.plan != nil {
		m.plan.Close()
	}
}

type unstickDoneMsg struct {
	key  model.Key
	done string
	err  error
}

// unlockDialog breaks a Stack's state lock. Forgetting its pending
// operations is a separate choice, off by default, that names each one.
type unlockDialog struct {
	*dialog
	key    model.Key
	plan   *stackops.Unstick
	planID int
	handed bool // the plan went to Apply, which closes it
}

// startUnlock opens the unlock dialog of a Stack and reads its state.
func (a *App) startUnlock(u *model.Unit) tea.Cmd {
	if u.Key.Engine != model.EnginePulumi {
		a.toastError("unlock is for Pulumi Stacks: it breaks a state lock left by a dead run")
		return nil
	}
	ud := &unlockDialog{key: u.Key}
	ud.dialog = a.newDialog(dlgConfirm, actions.Unlock, []*model.Unit{u})
	ud.dialog.outer = ud
	ud.custom = &customConfirm{
		title: "Unstick " + u.Key.Ref(),
		lines: []string{"reading the state of " + u.Key.Ref() + " …"},
		notReady: func() string {
			if ud.plan == nil {
				return "wait for the plan: what is confirmed is what is shown"
			}
			return ""
		},
		run: func(reason string) tea.Cmd { return ud.apply(a, reason) },
	}
	a.push(ud)
	return tea.Batch(ud.setFocus(0), ud.replan(a, false))
}

// replan reads the state again and plans the unstick for a choice.
func (ud *unlockDialog) replan(a *App, clearPending bool) tea.Cmd {
	if ud.plan != nil {
		ud.plan.Close()
		ud.plan = nil
	}
	ud.planID = a.nextID()
	id, k, be, ctx := ud.planID, ud.key, a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		p, err := be.PlanUnstick(ctx, k, clearPending, false)
		return unstickPlanMsg{id: id, plan: p, err: err}
	}
}

func (ud *unlockDialog) owns(id int) bool { return id == ud.planID }

func (ud *unlockDialog) close() {
	if ud.plan != nil && !ud.handed {
		ud.plan.Close()
	}
}

func (ud *unlockDialog) update(a *App, msg tea.Msg) tea.Cmd {
	if m, ok := msg.(unstickPlanMsg); ok {
		if m.id == ud.planID {
			ud.showPlan(a, m)
		}
		return nil
	}
	return ud.dialog.update(a, msg)
}

func (ud *unlockDialog) showPlan(a *App, m unstickPlanMsg) {
	c := ud.custom
	if m.err != nil {
		c.lines, ud.err = nil, "cannot unlock "+ud.key.Ref()+": "+m.err.Error()
		return
	}
	ud.plan, ud.err = m.plan, ""
	p, now := m.plan, a.now()
	c.title = "Unstick " + ud.key.Ref() + " (state " + p.Loc.Backend + ")"
	c.lines = nil
	for _, l := range p.Info.Locks {
		c.lines = append(c.lines, fmt.Sprintf("lock held by pid %d, %s@%s, for %s — process %s", l.PID, l.User, l.Host, model.HumanDuration(l.Age(now)), l.Holder))
	}
	c.lines = append(c.lines, "Will change:")
	for _, ch := range p.Changes() {
		c.lines = append(c.lines, "  "+ch)
	}
	c.warnings = []string{"only break a lock whose run is dead: a live update would lose its lock; then retry (x) to re-request a run"}
	if n := len(p.Info.Pending); n > 0 && len(ud.options) == 0 {
		opt := &dialogOption{label: fmt.Sprintf("also forget the %d pending operation(s) (a backup of the state is kept); off: they stay in the state", n)}
		for _, op := range p.Info.Pending {
			opt.detail = append(opt.detail, op.Type+" "+op.URN)
		}
		opt.toggled = func(on bool) tea.Cmd {
			c.lines = []string{"planning …"}
			return ud.replan(a, on)
		}
		ud.options = []*dialogOption{opt}
	}
}

func (ud *unlockDialog) apply(a *App, reason string) tea.Cmd {
	p, k := ud.plan, ud.key
	ud.handed = true
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		done, err := applyUnstick(ctx, be, p, reason)
		return unstickDoneMsg{key: k, done: done, err: err}
	}
}

// onUnstickDone reports an unlock, whichever screen is open by then.
func (a *App) onUnstickDone(m unstickDoneMsg) {
	a.wrote(m.key)
	if m.err != nil {
		a.toastError("unlock " + m.key.Ref() + ": " + m.err.Error())
		return
	}
	if m.done != "" {
		a.toastInfo(m.done)
		return
	}
	a.toastInfo(m.key.Ref() + " unstuck at " + a.now().Format("15:04:05") + ": press x to re-request a run")
}
