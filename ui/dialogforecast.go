package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/undo"
)

// forecastsMsg answers what the controllers of a resume dialog's units
// will change once back, by unit.
type forecastsMsg struct {
	id        int
	forecasts map[model.Key]undo.Forecast
}

// requestForecasts reads, once per dialog, what each resumed unit's
// controller will change, four at a time: the diffs the diff screen reads.
func (d *dialog) requestForecasts(a *App, plans []*actions.Plan) tea.Cmd {
	if d.action != actions.Resume || d.forecastAsked || len(plans) == 0 {
		return nil
	}
	d.forecastAsked = true
	id, be, ctx := d.id, a.opts.Backend, a.opts.Context
	return func() tea.Msg {
		out := undo.All(ctx, be, plans)
		byKey := make(map[model.Key]undo.Forecast, len(out))
		for _, f := range out {
			byKey[f.Key] = f
		}
		return forecastsMsg{id: id, forecasts: byKey}
	}
}

// forecastLines say under a resume's plan what its controller will change
// once back: every line for one unit, the summary in a bulk dialog.
func (d *dialog) forecastLines(a *App, k model.Key, whole bool) []planLine {
	if d.action != actions.Resume {
		return nil
	}
	t := a.theme
	f, read := d.forecasts[k]
	switch {
	case !read && whole:
		return []planLine{{"Once resumed: reading what the controller will change…", t.Dim}}
	case !read:
		return []planLine{{"  once resumed: reading what the controller will change…", t.Dim}}
	case !whole:
		return []planLine{{"  once resumed: " + safetext.Visible(f.Summary()), t.Warn}}
	}
	out := []planLine{{"Once resumed:", t.Bold}}
	for _, l := range f.Lines(a.opts.Origin) {
		out = append(out, planLine{"  " + safetext.Visible(l), t.Warn})
	}
	return out
}

// opensForecasts: a bulk resume dialog opens, on its buttons, every unit's
// whole forecast (the dialog shows one line per unit).
func (d *dialog) opensForecasts() bool {
	return d.kind == dlgBulk && d.action == actions.Resume
}

// forecastReport is every unit's forecast whole, unit by unit, in a report
// that scrolls over the bulk dialog; any other key closes it.
func forecastReport(a *App, d *dialog) *dialog {
	r := &dialog{id: a.nextID(), kind: dlgReport, action: d.action}
	r.report = []reportLine{{text: fmt.Sprintf("What the controllers of the %d units will change once resumed", len(d.units))}}
	for _, u := range d.units[:min(len(d.units), bulkPlanShown)] {
		p, planned := d.unitPlans[u.Key]
		f, read := d.forecasts[u.Key]
		switch {
		case !planned || p.err != nil:
			continue // skipped or refused: the dialog says why, nothing is resumed
		case !read:
			r.report = append(r.report, reportLine{text: "• " + u.Key.Ref() + ": reading what the controller will change…"})
			continue
		}
		r.report = append(r.report, reportLine{text: "• " + u.Key.Ref() + ":"})
		for _, l := range f.Lines(a.opts.Origin) {
			r.report = append(r.report, reportLine{text: "  " + l})
		}
	}
	return r
}
