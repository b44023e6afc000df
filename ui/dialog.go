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
	"github.com/driftdeck/driftdeck/backend/undo"
	"github.com/driftdeck/driftdeck/themes"
)

type dialogKind int

const (
	dlgMenu    dialogKind = iota // the actions of one unit, with why not
	dlgConfirm                   // one action on one unit: reason, plan, yes/no
	dlgBulk                      // one action on many units
	dlgReport                    // what a bulk action did, unit by unit
)

// dialog is a modal screen. Confirmations default to No.
type dialog struct {
	id     int // matches the answers to this dialog's requests
	kind   dialogKind
	action actions.Kind
	units  []*model.Unit
	req    actions.Request
	width  int
	height int

	avail  []model.Availability
	cursor int

	reason textinput.Model
	until  textinput.Model
	inputs []*textinput.Model
	focus  int // an input, an option, or the buttons
	// options are boxes to tick between the inputs and the buttons.
	options []*dialogOption
	yes     bool

	plan     *actions.Plan
	planID   int // the plan request whose answer is awaited
	planErr  error
	planning bool
	// inputsPlanID is the plan asked for with the reason and expiry as
	// typed (planWithInputs), untilText the expiry text it was planned with.
	inputsPlanID int
	untilText    string
	// sameChoicesFrom is the first plan asked for the unit and choices as
	// they are: the plans from it on differ only in the reason or expiry.
	sameChoicesFrom int
	// confirmOnPlan is a yes given while a plan was on its way: the write
	// goes when it comes, unless it differs from the plan shown.
	confirmOnPlan bool
	// changed says what differs from the plan shown before, when the unit
	// changed under the dialog or the write found it changed.
	changed []string
	running bool
	err     string
	report  []reportLine
	// hidden are the targets of a bulk dialog the list's filter or scope
	// does not show.
	hidden []*model.Unit
	// ownerWrites are what a bulk pause or resume writes to ApplicationSets,
	// once read (ownerRead).
	ownerWrites []actions.OwnerWrite
	ownerRead   bool
	// unitPlans are what a bulk action would write to each unit, once read.
	unitPlans map[model.Key]unitPlan
	// scroll is the first line of the write block shown, page how many
	// lines of it the last frame showed, bodyLines how many it has.
	scroll, page, bodyLines int
	// custom confirms something that is not an actions.Request (a Pulumi
	// plan's apply, a state repair): its own description and run.
	custom *customConfirm
	// outer is the screen on the stack when a dialog is part of a larger
	// one (the unlock dialog); nil when the dialog itself is.
	outer screen
	// asking: the user may not write the unit (why), and the plan shown is
	// stored in a change request instead of written.
	asking string
	// forecasts are what a resume's units' controllers will change once
	// back, by unit, once read (asked once per dialog).
	forecasts     map[model.Key]undo.Forecast
	forecastAsked bool
}

// self is the dialog as the stack holds it.
func (d *dialog) self() screen {
	if d.outer != nil {
		return d.outer
	}
	return d
}

// customConfirm describes a confirmation the caller words itself.
type customConfirm struct {
	title    string
	lines    []string
	warnings []string
	// notReady says why it cannot be confirmed yet ("" when it can).
	notReady func() string
	run      func(reason string) tea.Cmd
}

// dialogOption is one box to tick, with what ticking it adds.
type dialogOption struct {
	label  string
	detail []string
	on     bool
	// toggled re-plans for the new choice; its answer may change the
	// dialog's lines.
	toggled func(on bool) tea.Cmd
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

func (a *App) newDialog(kind dialogKind, action actions.Kind, units []*model.Unit) *dialog {
	d := &dialog{id: a.nextID(), kind: kind, action: action, units: units}
	d.reason = newInput("why (goes into the Event and the audit log)")
	d.until = newInput("optional: 2h, 30m, or 2026-12-01T08:00:00Z")
	d.inputs = []*textinput.Model{&d.reason}
	if specOf(action).TakesUntil {
		d.inputs = append(d.inputs, &d.until)
	}
	return d
}

func (d *dialog) setSize(w, h int) {
	d.width, d.height = w, h
	// The field fits the dialog's line after its label ("› Reason: ").
	iw := min(max(w-8, 20), 100) - 11
	d.reason.SetWidth(iw)
	d.until.SetWidth(iw)
}

func (d *dialog) setTheme(*themes.Theme) {}

// buttons is the focus index of the Yes/No row.
func (d *dialog) buttons() int {
	return len(d.inputs) + len(d.options)
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
	d.focus = min(max(i, 0), d.buttons())
	if in := d.focused(); in != nil {
		return in.Focus()
	}
	return nil
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

// startRequest runs a request for one unit: at once when the action is not
// destructive, else through a confirmation that plans once, now.
func (a *App) startRequest(req actions.Request, from screen) tea.Cmd {
	if a.refusedReadOnly(string(req.Kind)) {
		return nil
	}
	u := a.unit(req.Key)
	if u == nil {
		a.toastError(errGone(req.Key).Error())
		return nil
	}
	if !specOf(req.Kind).Destructive && !req.WithSource {
		// Refreshes change nothing but an annotation the controller removes.
		return a.execute(0, req)
	}
	return a.openConfirm(u, req, "")
}

// openConfirm opens the confirmation of one request on one unit, planned
// once, now; asking (why the user may not write it) stores the plan shown in
// a change request instead.
func (a *App) openConfirm(u *model.Unit, req actions.Request, asking string) tea.Cmd {
	d := a.newDialog(dlgConfirm, req.Kind, []*model.Unit{u})
	d.req, d.asking = req, asking
	d.req.Single = true
	d.addSyncOptions(a)
	d.addAutoSyncOptions(a, u)
	a.push(d)
	return tea.Batch(d.setFocus(0), d.requestPlan(a))
}

// requestPlan asks the backend what the dialog's action would write. It is
// asked when the dialog opens and again only when its unit changes: what
// the user confirms is the plan the write is bound to.
func (d *dialog) requestPlan(a *App) tea.Cmd {
	d.planID = a.nextID()
	d.sameChoicesFrom = d.planID
	id, req := d.planID, d.req
	d.planning = true
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		p, err := be.Plan(ctx, req)
		return planMsg{id: id, plan: p, err: err}
	}
}

// planWithInputs plans again with the reason and expiry as typed, once
// they are: the plan made when the dialog opened, before they were, showed
// an empty reason and no expiry among what it would write.
func (d *dialog) planWithInputs(a *App) tea.Cmd {
	if d.kind != dlgConfirm || d.custom != nil || len(d.units) != 1 {
		return nil
	}
	reason, untilText := strings.TrimSpace(d.reason.Value()), strings.TrimSpace(d.until.Value())
	if reason == d.req.Reason && untilText == d.untilText {
		return nil
	}
	until, err := parseUntil(untilText, a.now())
	if err != nil {
		return nil
	}
	d.req.Reason, d.req.Until, d.untilText = reason, until, untilText
	from := d.sameChoicesFrom
	cmd := d.requestPlan(a)
	d.inputsPlanID, d.sameChoicesFrom = d.planID, from
	return cmd
}

// earlierPlanToShow reports whether msg answers an earlier plan of the
// dialog's unit and choices, asked for before the reason or expiry was
// typed, while no plan is shown yet.
func (d *dialog) earlierPlanToShow(msg planMsg) bool {
	if d.kind != dlgConfirm || msg.err != nil || msg.plan == nil {
		return false
	}
	earlier := d.sameChoicesFrom > 0 && msg.id >= d.sameChoicesFrom && msg.id != d.planID
	noneShown := d.plan == nil && d.planErr == nil
	ofThisUnit := msg.plan.Request.Kind == d.req.Kind && msg.plan.Request.Key == d.units[0].Key
	return earlier && noneShown && ofThisUnit
}

// showPlan takes a new plan; when it differs from the one shown the
// dialog says what changed and needs confirming again. same: it writes
// what the plan shown did.
func (d *dialog) showPlan(p *actions.Plan, err error, changes []string) (same bool) {
	prev := d.plan
	d.plan, d.planErr, d.planning = p, err, false
	if prev == nil || p == nil {
		return false
	}
	if len(changes) == 0 {
		changes = actions.PlanDifferences(prev, p)
	}
	if len(changes) > 0 {
		d.changed = changes
		d.yes = false
	}
	return len(changes) == 0
}

func (d *dialog) update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return d.key(a, msg)
	case planMsg:
		if d.earlierPlanToShow(msg) {
			// Shown while the plan with what was typed is on its way (a yes
			// given now waits for it): on a slow link the dialog is not
			// left reading the object for both answers.
			d.plan = msg.plan
			return d.requestForecasts(a, []*actions.Plan{msg.plan})
		}
		if msg.id == d.planID {
			confirm := d.confirmOnPlan
			d.confirmOnPlan = false
			if msg.id == d.inputsPlanID && msg.err == nil && samePlannedVersions(d.plan, msg.plan) {
				// The object as before: what differs is what was typed.
				d.plan, d.planErr, d.planning = msg.plan, nil, false
				if confirm {
					return d.confirm(a)
				}
				break
			}
			if same := d.showPlan(msg.plan, msg.err, nil); same && confirm {
				// Only the version moved: it writes what was confirmed.
				return d.confirm(a)
			}
			if msg.plan != nil {
				return d.requestForecasts(a, []*actions.Plan{msg.plan})
			}
		}
	case forecastsMsg:
		if msg.id == d.id {
			d.forecasts = msg.forecasts
		}
	case unitsChangedMsg:
		return d.onUnitsChanged(a, msg.changed)
	case availMsg:
		if d.kind == dlgMenu && d.units[0].Key == msg.key {
			d.avail = msg.avail
		}
	case resultMsg:
		if msg.id == d.id {
			return d.onResult(a, msg)
		}
	case askedMsg:
		if msg.id == d.id {
			return d.onAsked(a, msg)
		}
	case ownerWritesMsg:
		if msg.id == d.id {
			d.ownerWrites, d.ownerRead = msg.writes, true
		}
	case bulkPlansMsg:
		if msg.id == d.planID {
			d.unitPlans = msg.plans
			var plans []*actions.Plan
			for _, u := range d.units {
				if p := msg.plans[u.Key].plan; p != nil {
					plans = append(plans, p)
				}
			}
			return d.requestForecasts(a, plans)
		}
	case bulkMsg:
		if msg.id == d.id {
			for _, u := range d.units {
				a.wrote(u.Key)
			}
			a.close(d.self())
			a.push(bulkReport(a, msg))
		}
	default:
		if in := d.focused(); in != nil {
			var cmd tea.Cmd
			*in, cmd = updateField(*in, msg) // the cursor's blink
			return cmd
		}
	}
	return nil
}

// onUnitsChanged re-plans when the dialog's unit changed, and follows the
// units of a bulk dialog.
func (d *dialog) onUnitsChanged(a *App, changed map[model.Key]bool) tea.Cmd {
	for i, u := range d.units {
		if changed[u.Key] {
			if now := a.unit(u.Key); now != nil {
				d.units[i] = now
			}
		}
	}
	if d.kind == dlgConfirm && d.custom == nil && !d.running && len(d.units) == 1 && changed[d.units[0].Key] {
		return d.requestPlan(a)
	}
	return nil
}

func (d *dialog) key(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	if d.running {
		return nil
	}
	switch d.kind {
	case dlgReport:
		if !d.scrollable() || !d.scrollKey(a, msg) {
			a.close(d.self())
		}
		return nil
	case dlgMenu:
		return d.menuKey(a, msg)
	}
	if d.scrollKey(a, msg) {
		return nil
	}
	if d.refused() {
		// Nothing can be written: only closing is left.
		if key.Matches(msg, k.Back) {
			a.close(d.self())
		}
		return nil
	}
	if in := d.focused(); in != nil {
		switch {
		case key.Matches(msg, k.Back):
			a.close(d.self())
			return nil
		case key.Matches(msg, k.NextField):
			last := d.focus == len(d.inputs)-1
			if last {
				if _, err := parseUntil(d.until.Value(), a.now()); err != nil {
					d.err = err.Error()
					return nil
				}
			}
			d.err = ""
			if last {
				return tea.Batch(d.setFocus(d.focus+1), d.planWithInputs(a), d.bulkInputsChanged(a))
			}
			return d.setFocus(d.focus + 1)
		case key.Matches(msg, k.PrevField):
			return d.setFocus(d.focus - 1)
		}
		var cmd tea.Cmd
		*in, cmd = updateField(*in, msg)
		return cmd
	}
	if d.focus < d.buttons() { // an option
		opt := d.options[d.focus-len(d.inputs)]
		switch {
		case key.Matches(msg, k.Tick):
			opt.on = !opt.on
			d.yes = false
			if opt.toggled != nil {
				return opt.toggled(opt.on)
			}
		case key.Matches(msg, k.Open):
			return d.setFocus(d.buttons())
		case key.Matches(msg, k.NextField, k.Down):
			return d.setFocus(d.focus + 1)
		case key.Matches(msg, k.PrevField, k.Up):
			return d.setFocus(d.focus - 1)
		case key.Matches(msg, k.Back):
			a.close(d.self())
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Diff) && d.opensForecasts():
		a.push(forecastReport(a, d))
	case key.Matches(msg, k.Confirm):
		d.yes = true
		return d.confirm(a)
	case key.Matches(msg, k.Cancel):
		a.close(d.self())
	case key.Matches(msg, k.Choose):
		d.yes = !d.yes
	case key.Matches(msg, k.PrevField):
		return d.setFocus(d.focus - 1)
	case key.Matches(msg, k.Open):
		if !d.yes {
			a.close(d.self())
			return nil
		}
		return d.confirm(a)
	}
	return nil
}

func (d *dialog) menuKey(a *App, msg tea.KeyPressMsg) tea.Cmd {
	k := a.keys
	switch {
	case key.Matches(msg, k.Back, k.Quit, k.Actions):
		a.close(d.self())
	case key.Matches(msg, k.Up):
		d.cursor = max(d.cursor-1, 0)
	case key.Matches(msg, k.Down):
		d.cursor = min(d.cursor+1, max(len(d.entries())-1, 0))
	case key.Matches(msg, k.Open):
		return d.pick(a, d.cursor)
	default:
		// The key an entry names, the one that does it from the list, does
		// it from the menu too.
		for i, e := range d.entries() {
			if b, ok := e.binding(a); ok && key.Matches(msg, b) {
				d.cursor = i
				return d.pick(a, i)
			}
		}
	}
	return nil
}

// menuEntry is one line of the actions menu: an action as the backend says
// it is possible now, or a refresh with the source first.
type menuEntry struct {
	model.Availability
	withSource bool
}

// entries are the menu's lines: reconcile with source follows refresh for
// a unit whose source is known.
func (d *dialog) entries() []menuEntry {
	var out []menuEntry
	for _, av := range d.avail {
		out = append(out, menuEntry{Availability: av})
		if av.Kind == actions.Refresh && withSourceWhyNot(d.units[0]) == "" {
			out = append(out, menuEntry{Availability: av, withSource: true})
		}
	}
	return out
}

func (e menuEntry) binding(a *App) (key.Binding, bool) {
	if e.withSource {
		return a.keys.RefreshWithSource, true
	}
	return a.binding(specOf(e.Kind))
}

// label names the entry and the key that does it from the list.
func (e menuEntry) label(a *App, u *model.Unit) string {
	line := string(e.Kind)
	if e.withSource {
		line = "reconcile with source"
	}
	if b, ok := e.binding(a); ok {
		line += " (" + b.Help().Key + ")"
	}
	if e.withSource {
		line += ": " + u.FluxRuntime().Source.String() + " first, then the unit"
	}
	if !e.Enabled {
		line += " — " + e.WhyNot
	}
	return line
}

// pick starts the menu's i-th action, or says why it cannot be taken.
func (d *dialog) pick(a *App, i int) tea.Cmd {
	entries := d.entries()
	if i >= len(entries) {
		return nil
	}
	e := entries[i]
	if !e.Enabled {
		a.toastError(string(e.Kind) + ": " + e.WhyNot)
		return nil
	}
	a.close(d.self())
	if e.withSource {
		return a.startWithSource(d.units[0], a.top())
	}
	return a.startKind(e.Kind, a.top(), []*model.Unit{d.units[0]})
}

// confirm runs the confirmed action, refusing an empty reason up front.
func (d *dialog) confirm(a *App) tea.Cmd {
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
	if c := d.custom; c != nil {
		if c.notReady != nil {
			if why := c.notReady(); why != "" {
				d.err, d.yes = why, false
				return nil
			}
		}
		cmd := c.run(reason)
		a.close(d.self())
		return cmd
	}
	if d.kind == dlgBulk {
		d.running = true
		return a.executeBulk(d.id, d.action, d.units, reason, until, d.shownPlans())
	}
	switch {
	case d.planErr != nil:
		d.err, d.yes = "nothing to confirm: "+d.planErr.Error(), false
		return nil
	case d.plan == nil:
		d.err, d.yes = "wait for the plan: what is confirmed is what is shown", false
		return nil
	case d.planning:
		// Written once the plan on its way is in (with what was typed, or
		// of the unit as it changed), unless it differs from the one shown.
		d.confirmOnPlan = true
		return nil
	}
	if cmd := d.planWithInputs(a); cmd != nil {
		// What was typed since is written too: it is planned, shown, and
		// then sent.
		d.confirmOnPlan = true
		return cmd
	}
	d.running, d.err = true, ""
	if d.asking != "" {
		return a.ask(d.id, d.plan)
	}
	return a.send(d.id, d.plan)
}

// send writes the plan shown, as it is.
func (a *App) send(id int, p *actions.Plan) tea.Cmd {
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		res, err := be.Send(ctx, p)
		return resultMsg{id: id, req: p.Request, res: res, err: err}
	}
}

func (a *App) execute(id int, req actions.Request) tea.Cmd {
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		res, err := be.Execute(ctx, req)
		return resultMsg{id: id, req: req, res: res, err: err}
	}
}

// onResult ends the dialog with the write's result, unless the write found
// the object changed since the plan was shown: then the dialog shows the
// new plan, says what changed, and asks again.
func (d *dialog) onResult(a *App, m resultMsg) tea.Cmd {
	d.running = false
	if p, changes, ok := planChanged(m.err); ok {
		d.showPlan(p, nil, changes)
		d.changed, d.yes = append([]string{"the object changed since this plan was shown; nothing was written"}, changes...), false
		return d.setFocus(d.buttons())
	}
	a.close(d.self())
	return a.onResult(m)
}

// onResult reports a write, then checks that it held.
func (a *App) onResult(m resultMsg) tea.Cmd {
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
	a.wrote(m.req.Key)
	return tea.Batch(a.settleCmd(m.res), a.broadcast(wroteMsg{key: m.req.Key}))
}

func bulkReport(a *App, m bulkMsg) *dialog {
	var applied, skipped, failed, unknown int
	var lines []reportLine
	for _, o := range m.outcomes {
		switch o.Outcome {
		case actions.OutcomeUnknown:
			unknown++
			lines = append(lines, reportLine{text: "? unknown  " + o.Key.Ref() + ": " + o.Why, bad: true})
		case actions.OutcomeFailed:
			failed++
			lines = append(lines, reportLine{text: "✗ failed   " + o.Key.Ref() + ": " + o.Why, bad: true})
		case actions.OutcomeSkipped:
			skipped++
			lines = append(lines, reportLine{text: "– skipped  " + o.Key.Ref() + ": " + o.Why})
		default:
			applied++
			line := "✓ applied  " + o.Key.Ref()
			if o.Result != nil && o.Result.DryRun {
				line += " (dry run: nothing written)"
			}
			if o.Result != nil && len(o.Result.Warnings) > 0 {
				line += " (" + strings.Join(o.Result.Warnings, "; ") + ")"
			}
			lines = append(lines, reportLine{text: line})
		}
	}
	d := &dialog{id: a.nextID(), kind: dlgReport, action: m.kind}
	head := fmt.Sprintf("%s of %d units: %d applied, %d skipped, %d failed", m.kind, len(m.outcomes), applied, skipped, failed)
	if unknown > 0 {
		head += fmt.Sprintf(", %d unknown (the answer was lost: look before retrying)", unknown)
	}
	d.report = append([]reportLine{{text: head, bad: failed+unknown > 0}}, lines...)
	return d
}

// openCustom asks for a reason and a confirmation of something described by
// the caller; run gets the reason once confirmed.
func (a *App) openCustom(c *customConfirm) tea.Cmd {
	d := a.newDialog(dlgConfirm, "", nil)
	d.custom = c
	a.push(d)
	return d.setFocus(0)
}

// refused tells a confirmation whose plan the backend refused: it shows
// why, and neither a reason to type nor a yes to press.
func (d *dialog) refused() bool {
	return d.kind == dlgConfirm && d.custom == nil && d.planErr != nil && !d.planning
}

func (d *dialog) keyHelp(a *App) string {
	help := d.hintsFor(a)
	if d.scrollable() {
		help = a.hints(a.keys.PageDown.Help().Key+"/"+a.keys.PageUp.Help().Key, "scroll") + "  " + help
	}
	return help
}

func (d *dialog) hintsFor(a *App) string {
	k := a.keys
	switch {
	case d.refused():
		return a.hints(a.keys.Back.Help().Key, "close")
	case d.kind == dlgMenu:
		return a.keyHints(bindings(a.keys.Up, a.keys.Down, a.keys.Open, a.keys.Back))
	case d.kind == dlgReport && d.scrollable():
		return a.hints("j/k g/G", "move", "any other key", "closes")
	case d.kind == dlgReport:
		return a.theme.FooterDesc.Render("any key closes")
	case d.focused() != nil:
		return a.hints(k.NextField.Help().Key, "next field", k.PrevField.Help().Key, "previous field", k.Back.Help().Key, "cancel")
	case d.focus < d.buttons():
		return a.hints(k.Tick.Help().Key, "tick / untick", "↑↓", "move", k.Open.Help().Key, "to the buttons", k.Back.Help().Key, "cancel")
	}
	return a.hints(k.Confirm.Help().Key, "yes", strings.Join(k.Cancel.Keys(), "/"), "no", k.Choose.Help().Key, "choose", k.Open.Help().Key, "confirm choice", k.PrevField.Help().Key, "edit reason")
}
