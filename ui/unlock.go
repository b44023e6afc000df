package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

type unstickPlanMsg struct {
	key  model.Key
	plan *stackops.Unstick
	err  error
}

type unstickDoneMsg struct {
	key model.Key
	err error
}

// startUnlock reads the Stack's state backend and, when its lock is held,
// asks to break it (and forget pending operations), naming the lock first.
func (a *App) startUnlock() tea.Cmd {
	u := a.current()
	if u == nil || u.Key.Engine != model.EnginePulumi {
		a.toastError("unlock is for Pulumi Stacks: it breaks a state lock left by a dead run")
		return nil
	}
	be, ctx, k := a.opts.Backend, a.opts.Context, u.Key
	a.toastInfo("reading the state of " + k.Ref() + " …")
	return func() tea.Msg {
		p, err := be.PlanUnstick(ctx, k, true, false)
		return unstickPlanMsg{key: k, plan: p, err: err}
	}
}

func (a *App) onUnstickPlan(m unstickPlanMsg) tea.Cmd {
	if m.err != nil {
		a.toastError("unlock " + m.key.Ref() + ": " + m.err.Error())
		return nil
	}
	p, now := m.plan, a.now()
	var lines []string
	for _, l := range p.Info.Locks {
		lines = append(lines, fmt.Sprintf("lock held by pid %d, %s@%s, for %s — process %s", l.PID, l.User, l.Host, model.HumanDuration(l.Age(now)), l.Holder))
	}
	lines = append(lines, "Will change:")
	for _, c := range p.Changes() {
		lines = append(lines, "  "+c)
	}
	be, ctx := a.opts.Backend, a.opts.Context
	return a.openCustom(&customConfirm{
		title:    "Unstick " + m.key.Ref() + " (state " + p.Loc.Backend + ")",
		lines:    lines,
		warnings: []string{"only break a lock whose run is dead: a live update would lose its lock; then retry (x) to re-request a run"},
		run: func(reason string) tea.Cmd {
			return func() tea.Msg {
				_, err := be.Apply(ctx, p, reason)
				return unstickDoneMsg{key: m.key, err: err}
			}
		},
	})
}

func (a *App) onUnstickDone(m unstickDoneMsg) {
	if m.err != nil {
		a.toastError("unlock " + m.key.Ref() + ": " + m.err.Error())
		return
	}
	a.toastInfo(m.key.Ref() + " unstuck at " + a.now().Format("15:04:05") + ": press x to re-request a run")
}
