package ui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// A root module is planned (the replan key: tofu plan, saved), applied from
// the plan shown (approve on its diff screen: exactly that plan file) and
// unlocked (force unlock: exactly the lock shown).

// rootPlannedMsg ends a plan of a root module started from the workbench.
type rootPlannedMsg struct {
	key model.Key
	err error
}

// rootDoneMsg ends an apply or an unlock of a root module.
type rootDoneMsg struct {
	key  model.Key
	what string // "apply of plan …", "unlock of …"
	done string // what was done when not simply done (a dry run)
	err  error
}

// rootKind starts an action on a root module: a plan, the apply of the
// plan (shown first), or the break of the lock shown.
func (a *App) rootKind(kind actions.Kind, u *model.Unit) tea.Cmd {
	switch kind {
	case actions.Replan:
		return a.planRoot(u)
	case actions.Approve:
		// What is applied is a plan the user has seen: its screen first.
		a.toastInfo("the plan of " + u.Key.Ref() + ": " + a.keys.Approve.Help().Key + " here applies exactly it")
		return a.open(diffOf{u})
	case actions.ForceUnlock:
		return a.unlockRoot(u)
	}
	a.toastError(fmt.Sprintf("driftdeck does not %s a root module", kind))
	return nil
}

// planRoot runs tofu plan on a root module, then shows the plan saved.
func (a *App) planRoot(u *model.Unit) tea.Cmd {
	a.toastInfo("planning " + u.Key.Ref() + " (tofu plan, with the state lock) …")
	be, ctx, k := a.opts.Backend, a.opts.Context, u.Key
	return func() tea.Msg {
		_, err := be.PlanRoot(ctx, k)
		return rootPlannedMsg{key: k, err: err}
	}
}

func (a *App) onRootPlanned(m rootPlannedMsg) tea.Cmd {
	a.wrote(m.key)
	if m.err != nil {
		a.toastError("plan of " + m.key.Ref() + ": " + m.err.Error())
		return nil
	}
	if d, ok := a.top().(*diffScreen); ok && d.unitKey == m.key {
		return d.diffCmd(a) // planned from its plan's screen: the new plan there
	}
	u := a.unit(m.key)
	if u == nil {
		return nil
	}
	return a.open(diffOf{u})
}

// approveRoot asks to apply exactly the plan id shown.
func (a *App) approveRoot(k model.Key, id, summary string) tea.Cmd {
	if a.refusedReadOnly("apply of the plan shown") {
		return nil
	}
	if id == "" {
		a.toastError("no plan shown yet: wait for it, or plan with " + a.keys.Replan.Help().Key)
		return nil
	}
	be, ctx := a.opts.Backend, a.opts.Context
	return a.openCustom(&customConfirm{
		title: "Apply plan " + id + " of " + k.Ref(),
		lines: []string{
			summary,
			"runs tofu apply of exactly the saved plan file shown, with your credentials",
			"a state changed since the plan (another apply) makes tofu refuse it: nothing outside the plan is applied",
		},
		run: func(reason string) tea.Cmd {
			a.toastInfo("applying plan " + id + " of " + k.Ref() + " …")
			return func() tea.Msg {
				done, err := be.ApplyRoot(ctx, k, id, reason)
				return rootDoneMsg{key: k, what: "apply of plan " + id, done: done, err: err}
			}
		},
	})
}

// unlockRoot asks to break exactly the lock the unit shows.
func (a *App) unlockRoot(u *model.Unit) tea.Cmd {
	if a.refusedReadOnly("force unlock") {
		return nil
	}
	f := u.Root
	switch {
	case f == nil || f.Lock == nil:
		a.toastError(u.Key.Ref() + ": the state is not locked")
		return nil
	case f.Backend == "local":
		a.toastError(u.Key.Ref() + ": the lock is held by a process that still runs on this machine (" + f.Lock.Who + "): end it, and its lock goes with it")
		return nil
	}
	l, be, ctx, k := f.Lock, a.opts.Backend, a.opts.Context, u.Key
	lines := []string{
		"lock " + l.ID + " of the " + f.Backend + " backend",
		"held by " + orUnknown(l.Who) + " for " + orUnknown(l.Operation),
	}
	if !l.Created.IsZero() {
		lines = append(lines, "since "+l.Created.Local().Format(time.DateTime)+" ("+model.HumanDuration(a.now().Sub(l.Created))+" ago)")
	}
	return a.openCustom(&customConfirm{
		title:    "Break the state lock of " + k.Ref(),
		lines:    append(lines, "runs tofu force-unlock "+l.ID+": a lock taken since is not broken"),
		warnings: []string{"only break a lock whose run is dead: a live apply would lose its lock and may corrupt the state"},
		run: func(reason string) tea.Cmd {
			return func() tea.Msg {
				done, err := be.UnlockRoot(ctx, k, l.ID, reason)
				return rootDoneMsg{key: k, what: "unlock of " + k.Ref(), done: done, err: err}
			}
		},
	})
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// onRootDone reports an apply or an unlock, whichever screen is open.
func (a *App) onRootDone(m rootDoneMsg) {
	a.wrote(m.key)
	switch {
	case m.err != nil:
		a.toastError(m.what + ": " + m.err.Error())
	case m.done != "":
		a.toastInfo(m.done)
	default:
		a.toastInfo(m.what + " done at " + a.now().Format("15:04:05"))
	}
}
