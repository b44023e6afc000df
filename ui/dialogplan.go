package ui

import (
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sync/errgroup"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/themes"
)

// planLine is one line of what a plan writes, with its style.
type planLine struct {
	text  string
	style lipgloss.Style
}

// planLines say what a plan writes, as the confirmation shows it: each
// field, the warnings, the patch and, with also, the other objects written.
// Every text is escaped: old values and the reason come from outside.
func planLines(t *themes.Theme, p *actions.Plan, indent string, also bool) []planLine {
	plain := lipgloss.NewStyle()
	out := []planLine{{indent + "Will write:", t.Bold}}
	for _, c := range p.Changes {
		out = append(out, planLine{indent + "  " + safetext.Visible(c), plain})
	}
	for _, w := range p.Warnings {
		out = append(out, planLine{indent + "! " + safetext.Visible(w), t.Warn})
	}
	out = append(out, planLine{fmt.Sprintf("%sJSON patch on resourceVersion %s, %d operations, tests first.", indent, safetext.Visible(p.ResourceVersion), len(p.Patch)), t.Dim})
	if also {
		for _, o := range p.Also {
			out = append(out, planLine{indent + safetext.Visible(o.Heading()), t.Bold})
			for _, c := range o.Changes {
				out = append(out, planLine{indent + "  " + safetext.Visible(c), plain})
			}
		}
	}
	return out
}

// bulkPlanShown bounds the units a bulk dialog reads the writes of; the
// rest are named, with where to see their writes.
const bulkPlanShown = 100

// unitPlan is what one unit of a bulk action would be written.
type unitPlan struct {
	plan *actions.Plan
	err  error
}

// bulkPlansMsg answers a bulk dialog's plans, one per unit read.
type bulkPlansMsg struct {
	id    int
	plans map[model.Key]unitPlan
}

// requestBulkPlans asks what a bulk action would write to each unit, with
// the reason and expiry as typed, as a single action's dialog shows it.
func (d *dialog) requestBulkPlans(a *App) tea.Cmd {
	if d.kind != dlgBulk {
		return nil
	}
	d.planID = a.nextID()
	id := d.planID
	var reqs []actions.Request
	for _, u := range d.units[:min(len(d.units), bulkPlanShown)] {
		reqs = append(reqs, actions.Request{Kind: d.action, Key: u.Key, Reason: d.req.Reason, Until: d.req.Until})
	}
	be, ctx := a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		plans := make([]unitPlan, len(reqs))
		var g errgroup.Group
		g.SetLimit(8)
		for i, r := range reqs {
			g.Go(func() error {
				plans[i].plan, plans[i].err = be.Plan(ctx, r)
				return nil
			})
		}
		_ = g.Wait() // each plan carries its own error
		out := make(map[model.Key]unitPlan, len(reqs))
		for i, r := range reqs {
			out[r.Key] = plans[i]
		}
		return bulkPlansMsg{id: id, plans: out}
	}
}

// shownPlans are the plans a bulk dialog shows, by unit.
func (d *dialog) shownPlans() map[model.Key]*actions.Plan {
	out := map[model.Key]*actions.Plan{}
	for k, p := range d.unitPlans {
		if p.plan != nil {
			out[k] = p.plan
		}
	}
	return out
}

// bulkInputsChanged plans a bulk dialog's units again once the reason and
// expiry are typed: both are written.
func (d *dialog) bulkInputsChanged(a *App) tea.Cmd {
	if d.kind != dlgBulk {
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
	return d.requestBulkPlans(a)
}

// bulkPlanLines name every unit of a bulk dialog with what it writes.
func (d *dialog) bulkPlanLines(a *App) []planLine {
	t := a.theme
	var out []planLine
	// Pause and resume show their ApplicationSet writes once, for all
	// children together, as the bulk write makes them.
	also := d.action != actions.Pause && d.action != actions.Resume
	for _, u := range d.units[:min(len(d.units), bulkPlanShown)] {
		ref := safetext.Visible(u.Key.Ref())
		p, read := d.unitPlans[u.Key]
		var refusal *actions.Refusal
		switch {
		case !read:
			out = append(out, planLine{"• " + ref + ": reading the object…", t.Dim})
		case errors.As(p.err, &refusal) && refusal.NothingToDo:
			out = append(out, planLine{"• " + ref + ": skipped, " + safetext.Visible(refusal.Reason), t.Dim})
		case p.err != nil:
			out = append(out, planLine{"• " + ref + ": cannot " + string(d.action) + ": " + safetext.Visible(p.err.Error()), t.Bad})
		default:
			out = append(out, planLine{"• " + safetext.Visible(p.plan.Summary), t.Bold})
			out = append(out, planLines(t, p.plan, "  ", also)...)
			out = append(out, d.forecastLines(a, u.Key, false)...)
		}
	}
	if rest := d.units[min(len(d.units), bulkPlanShown):]; len(rest) > 0 {
		out = append(out, planLine{fmt.Sprintf("• %d more units, their writes not read here (--dry-run on the command line prints every write): %s",
			len(rest), strings.Join(refs(rest), ", ")), t.Dim})
	}
	return out
}

// fieldView shows a field as typed, but with control characters and bidi
// overrides made visible: pasted text can neither reorder the line nor
// move the dialog's border.
func fieldView(in *textinput.Model) string {
	v := in.Value()
	if safetext.Visible(v) == v {
		return in.View()
	}
	r := []rune(v)
	pos := min(in.Position(), len(r))
	left, right := safetext.Visible(string(r[:pos])), safetext.Visible(string(r[pos:]))
	if !in.Focused() {
		return left + right
	}
	if over := ansi.StringWidth(left) - max(in.Width()-2, 1); over > 0 {
		left = ansi.TruncateLeft(left, over+1, "…") // the cursor stays in sight
	}
	return left + lipgloss.NewStyle().Reverse(true).Render(" ") + right
}
