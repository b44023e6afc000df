package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/changereq"
)

// askedMsg is the answer of a change request made from a dialog.
type askedMsg struct {
	id  int
	cr  *changereq.ChangeRequest
	err error
}

// startAsk opens the confirmation of an action the user may not do but may
// ask for: the plan is shown as for the action, and confirming stores it
// in a change request that another person approves.
func (a *App) startAsk(req actions.Request, why string) tea.Cmd {
	if a.refusedReadOnly(string(req.Kind)) {
		return nil
	}
	u := a.unit(req.Key)
	if u == nil {
		a.toastError(errGone(req.Key).Error())
		return nil
	}
	return a.openConfirm(u, req, why)
}

// ask stores the plan shown in a change request.
func (a *App) ask(id int, p *actions.Plan) tea.Cmd {
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		cr, err := be.Ask(ctx, p)
		return askedMsg{id: id, cr: cr, err: err}
	}
}

func (d *dialog) onAsked(a *App, m askedMsg) tea.Cmd {
	d.running = false
	if m.err != nil {
		d.err, d.yes = "not asked: "+m.err.Error(), false
		return nil
	}
	a.close(d.self())
	a.toastInfo(fmt.Sprintf("asked: change request %s needs %d approval(s) by another person; the agent applies it (:requests)", m.cr.Ref(), m.cr.Spec.ApprovalsRequired))
	return nil
}
