package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/views/detail"
)

type dialogKind int

const (
	dlgMenu    dialogKind = iota // the actions of one unit, with why not
	dlgConfirm                   // one action on one unit: reason, plan, yes/no
	dlgBulk                      // one action on many units
	dlgReport                    // what a bulk action did, unit by unit
)

// dialog is the one modal on screen. Confirmations default to No.
type dialog struct {
	kind   dialogKind
	action actions.Kind
	units  []*model.Unit
	req    actions.Request

	avail  []actions.Availability
	cursor int

	reason textinput.Model
	until  textinput.Model
	inputs []*textinput.Model
	focus  int // an input, or len(inputs) for the buttons
	yes    bool

	plan     *actions.Plan
	planErr  error
	planning bool
	running  bool
	err      string
	report   []reportLine
	// custom confirms something that is not an actions.Request (a Pulumi
	// plan's apply, a state repair): its own description and run.
	custom *customConfirm
}

// customConfirm describes a confirmation the caller words itself.
type customConfirm struct {
	title    string
	lines    []string
	warnings []string
	run      func(reason string) tea.Cmd
}

type reportLine struct {
	text string
	bad  bool
}

func newInput(placeholder string) textinput.Model {
	in := textinput.New()
	in.Placeholder = placeholder
	in.Prompt = ""
	in.CharLimit = 500
	return in
}

// needsUntil: pauses take an optional expiry.
func needsUntil(k actions.Kind) bool { return k == actions.Pause || k == actions.PauseSelfHeal }

func (a *App) newDialog(kind dialogKind, action actions.Kind, units []*model.Unit) *dialog {
	d := &dialog{kind: kind, action: action, units: units}
	d.reason = newInput("why (goes into the Event and the audit log)")
	d.until = newInput("optional: 2h, 30m, or 2026-12-01T08:00:00Z")
	d.inputs = []*textinput.Model{&d.reason}
	if needsUntil(action) {
		d.inputs = append(d.inputs, &d.until)
	}
	w := min(max(a.width-12, 20), 96)
	d.reason.SetWidth(w)
	d.until.SetWidth(w)
	return d
}

func (d *dialog) focused() *textinput.Model {
	if d.focus < len(d.inputs) {
		return d.inputs[d.focus]
	}
	return nil
}

func (d *dialog) setFocus(i int) tea.Cmd {
	for _, in := range d.inputs {
		in.Blur()
	}
	d.focus = i
	if in := d.focused(); in != nil {
		return in.Focus()
	}
	return nil
}

func (d *dialog) setPlan(p *actions.Plan, err error) {
	d.plan, d.planErr, d.planning = p, err, false
}

func (d *dialog) setAvailability(k model.Key, avail []actions.Availability) {
	if d.kind == dlgMenu && len(d.units) == 1 && d.units[0].Key == k {
		d.avail = avail
	}
}

// parseUntil reads an expiry: a duration from now, or an RFC 3339 time.
func parseUntil(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("expiry %q is not in the future", s)
		}
		return now.Add(d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("expiry %q: want a duration like 2h or a time like 2026-12-01T08:00:00Z", s)
	}
	if !t.After(now) {
		return time.Time{}, fmt.Errorf("expiry %s is in the past", s)
	}
	return t, nil
}

// startAction opens the confirmation for an action on the marked units (when
// some are marked and the action works in bulk) or on the current unit.
func (a *App) startAction(kind actions.Kind) tea.Cmd {
	if marked := a.list.Marked(); a.detail == nil && len(marked) > 1 && bulkable(kind) {
		return a.openBulk(kind, marked)
	}
	u := a.current()
	if u == nil {
		return nil
	}
	if len(actions.KindsFor(u.Key.Engine)) == 0 || !knows(u.Key.Engine, kind) {
		a.toastError(fmt.Sprintf("%s is not an action of %s units", kind, u.Key.Engine))
		return nil
	}
	req := actions.Request{Kind: kind, Key: u.Key}
	if kind == actions.Rollback {
		if a.detail == nil {
			a.toastError("rollback: open the unit (enter), pick an entry on its History tab, then press " + a.keys.Rollback.Help().Key)
			return nil
		}
		h, ok := a.detail.SelectedHistory()
		if !ok {
			a.detail.ShowTab(detail.History)
			a.toastError("rollback: pick the entry to roll back to, then press " + a.keys.Rollback.Help().Key)
			return nil
		}
		req.HistoryID = h.ID
	}
	if !kind.Destructive() {
		// Refreshes change nothing but an annotation the controller removes.
		return a.execute(req)
	}
	a.dialog = a.newDialog(dlgConfirm, kind, []*model.Unit{u})
	a.dialog.req = req
	return tea.Batch(a.dialog.setFocus(0), a.requestPlan())
}

func knows(e model.Engine, k actions.Kind) bool {
	for _, x := range actions.KindsFor(e) {
		if x == k {
			return true
		}
	}
	return false
}

func bulkable(k actions.Kind) bool {
	switch k {
	case actions.Pause, actions.Resume, actions.Refresh, actions.HardRefresh, actions.Retry, actions.Sync:
		return true
	}
	return false
}

// current is the unit the user is looking at.
func (a *App) current() *model.Unit {
	if a.detail != nil {
		return a.detail.Unit()
	}
	return a.list.Selected()
}

// startBulk opens a freeze (pause) or thaw (resume) of the marked units, or of
// every shown unit when none is marked.
func (a *App) startBulk(kind actions.Kind) tea.Cmd {
	units := a.list.Marked()
	if len(units) == 0 {
		units = a.list.Shown()
	}
	if len(units) == 0 {
		a.toastError("nothing to " + string(kind) + ": no unit is shown")
		return nil
	}
	return a.openBulk(kind, units)
}

func (a *App) openBulk(kind actions.Kind, units []*model.Unit) tea.Cmd {
	a.dialog = a.newDialog(dlgBulk, kind, units)
	return a.dialog.setFocus(0)
}

func (a *App) openActionMenu() tea.Cmd {
	u := a.current()
	if u == nil {
		return nil
	}
	a.dialog = &dialog{kind: dlgMenu, units: []*model.Unit{u}}
	if a.detail != nil && a.detail.Key() == u.Key {
		a.dialog.avail = a.detail.Availability()
	}
	return a.availCmd(u)
}

// requestPlan asks the backend what the dialog's action would write.
func (a *App) requestPlan() tea.Cmd {
	d := a.dialog
	a.seq++
	seq, req := a.seq, d.req
	req.Reason = d.reason.Value()
	if until, err := parseUntil(d.until.Value(), a.now()); err == nil {
		req.Until = until
	}
	d.planning = true
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		p, err := be.Plan(ctx, req)
		return planMsg{seq: seq, plan: p, err: err}
	}
}

func (a *App) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	d, k := a.dialog, a.keys
	if d.running {
		return nil
	}
	switch d.kind {
	case dlgReport:
		a.dialog = nil
		return nil
	case dlgMenu:
		return a.menuKey(msg)
	}
	if in := d.focused(); in != nil {
		switch msg.String() {
		case "esc":
			a.dialog = nil
			return nil
		case "enter", "tab":
			if d.focus == 1 || !needsUntil(d.action) {
				if _, err := parseUntil(d.until.Value(), a.now()); err != nil {
					d.err = err.Error()
					return nil
				}
			}
			d.err = ""
			cmd := d.setFocus(d.focus + 1)
			if d.kind == dlgConfirm && d.custom == nil {
				return tea.Batch(cmd, a.requestPlan())
			}
			return cmd
		case "shift+tab":
			return d.setFocus(max(d.focus-1, 0))
		}
		var cmd tea.Cmd
		*in, cmd = in.Update(msg)
		return cmd
	}
	switch {
	case key.Matches(msg, k.Confirm):
		d.yes = true
		return a.confirm()
	case key.Matches(msg, k.Cancel):
		a.dialog = nil
	case msg.String() == "left" || msg.String() == "right" || msg.String() == "h" || msg.String() == "l":
		d.yes = !d.yes
	case msg.String() == "shift+tab":
		return d.setFocus(len(d.inputs) - 1)
	case msg.String() == "enter":
		if !d.yes {
			a.dialog = nil
			return nil
		}
		return a.confirm()
	}
	return nil
}

func (a *App) menuKey(msg tea.KeyPressMsg) tea.Cmd {
	d, k := a.dialog, a.keys
	switch {
	case key.Matches(msg, k.Back, k.Quit, k.Actions):
		a.dialog = nil
	case key.Matches(msg, k.Up):
		d.cursor = max(d.cursor-1, 0)
	case key.Matches(msg, k.Down):
		d.cursor = min(d.cursor+1, max(len(d.avail)-1, 0))
	case key.Matches(msg, k.Open):
		if d.cursor < len(d.avail) {
			av := d.avail[d.cursor]
			if !av.Enabled {
				a.toastError(string(av.Kind) + ": " + av.WhyNot)
				return nil
			}
			a.dialog = nil
			return a.startAction(av.Kind)
		}
	}
	return nil
}

// confirm runs the confirmed action, refusing an empty reason up front.
func (a *App) confirm() tea.Cmd {
	d := a.dialog
	reason := strings.TrimSpace(d.reason.Value())
	if reason == "" {
		d.err = "a reason is required"
		d.yes = false
		return d.setFocus(0)
	}
	until, err := parseUntil(d.until.Value(), a.now())
	if err != nil {
		d.err = err.Error()
		return d.setFocus(1)
	}
	d.running = true
	if d.custom != nil {
		run := d.custom.run
		a.dialog = nil
		return run(reason)
	}
	if d.kind == dlgBulk {
		return a.executeBulk(d.action, d.units, reason, until)
	}
	req := d.req
	req.Reason, req.Until = reason, until
	return a.execute(req)
}

func (a *App) execute(req actions.Request) tea.Cmd {
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		res, err := be.Execute(ctx, req)
		return resultMsg{req: req, res: res, err: err}
	}
}

func (a *App) executeBulk(kind actions.Kind, units []*model.Unit, reason string, until time.Time) tea.Cmd {
	keys := make([]model.Key, len(units))
	for i, u := range units {
		keys[i] = u.Key
	}
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		return bulkMsg{kind: kind, outcomes: be.Bulk(ctx, actions.BulkRequest{Kind: kind, Keys: keys, Reason: reason, Until: until})}
	}
}

func (a *App) onResult(m resultMsg) tea.Cmd {
	a.dialog = nil
	if m.err != nil {
		a.toastError(fmt.Sprintf("%s %s: %v", m.req.Kind, m.req.Key.Ref(), m.err))
		return nil
	}
	text := m.res.Plan.Summary
	if m.res.DryRun {
		text = "dry run: " + text
	}
	if m.res.Verified {
		text += " — done"
	}
	a.toastInfo(text)
	for _, w := range m.res.Warnings {
		a.toastError(w)
	}
	if a.detail != nil && a.detail.Key() == m.req.Key {
		return tea.Batch(a.describeCmd(), a.availCmd(a.detail.Unit()))
	}
	return nil
}

func (a *App) onBulk(m bulkMsg) {
	var done, skipped, failed int
	var lines []reportLine
	for _, o := range m.outcomes {
		switch {
		case o.Outcome == actions.OutcomeFailed:
			failed++
			lines = append(lines, reportLine{text: "✗ " + o.Key.Ref() + ": " + o.Why, bad: true})
		case o.Outcome == actions.OutcomeSkipped:
			skipped++
			lines = append(lines, reportLine{text: "– " + o.Key.Ref() + ": skipped, " + o.Why})
		default:
			done++
			line := "✓ " + o.Key.Ref()
			if o.Result != nil && len(o.Result.Warnings) > 0 {
				line += " (" + strings.Join(o.Result.Warnings, "; ") + ")"
			}
			lines = append(lines, reportLine{text: line})
		}
	}
	d := &dialog{kind: dlgReport, action: m.kind}
	d.report = append([]reportLine{{text: fmt.Sprintf("%s: %d done, %d skipped, %d failed", m.kind, done, skipped, failed), bad: failed > 0}}, lines...)
	a.dialog = d
	a.list.ClearMarks()
}

// openCustom asks for a reason and a confirmation of something described by
// the caller; run gets the reason once confirmed.
func (a *App) openCustom(c *customConfirm) tea.Cmd {
	a.dialog = a.newDialog(dlgConfirm, "", nil)
	a.dialog.custom = c
	return a.dialog.setFocus(0)
}
