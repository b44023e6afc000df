package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/actions"
)

// maxListed bounds the units a bulk dialog names one by one.
const maxListed = 8

func (a *App) dialogView(now time.Time) string {
	d, t := a.dialog, a.theme
	inner := min(max(a.width-8, 20), 100)
	var lines []string
	add := func(s string) { lines = append(lines, ansi.Truncate(s, inner, "…")) }
	wrap := func(s string, st lipgloss.Style) {
		for _, l := range strings.Split(ansi.Wrap(s, inner, ""), "\n") {
			lines = append(lines, st.Render(l))
		}
	}
	switch d.kind {
	case dlgMenu:
		add(t.DialogTitle.Render("Actions on " + d.units[0].Key.Ref()))
		if d.avail == nil {
			add(t.Dim.Render("checking permissions…"))
		}
		for i, av := range d.avail {
			line := "  " + string(av.Kind)
			if !av.Enabled {
				line += " — " + av.WhyNot
			}
			switch {
			case i == d.cursor:
				add(t.Selected.Render(ansi.Truncate(line, inner, "…")))
			case av.Enabled:
				add(line)
			default:
				add(t.Dim.Render(line))
			}
		}
	case dlgReport:
		for i, r := range d.report {
			st := lipgloss.NewStyle()
			if i == 0 {
				st = t.DialogTitle
			}
			if r.bad {
				st = t.Bad
			}
			wrap(r.text, st)
		}
	default:
		lines = append(lines, a.confirmLines(d, inner, now)...)
	}
	room := max(a.bodyHeight()-2, 3)
	if len(lines) > room {
		lines = append(lines[:room-1], t.Dim.Render("… (more: enlarge the terminal)"))
	}
	box := t.Dialog.Width(inner + 4).Render(strings.Join(lines, "\n"))
	return lipgloss.Place(a.width, a.bodyHeight(), lipgloss.Center, lipgloss.Center, box)
}

func (a *App) confirmLines(d *dialog, inner int, now time.Time) []string {
	t := a.theme
	var lines []string
	wrap := func(s string, st lipgloss.Style) {
		for _, l := range strings.Split(ansi.Wrap(s, inner, ""), "\n") {
			lines = append(lines, st.Render(l))
		}
	}
	if d.kind == dlgBulk {
		wrap(fmt.Sprintf("%s %d units", titleOf(d.action), len(d.units)), t.DialogTitle)
		for i, u := range d.units {
			if i == maxListed {
				lines = append(lines, t.Dim.Render(fmt.Sprintf("  … and %d more", len(d.units)-maxListed)))
				break
			}
			lines = append(lines, "  "+u.Key.Ref())
		}
		switch d.action {
		case actions.Pause:
			wrap("Each unit's automation is switched off and its exact previous state, who, why, when and until are recorded on the object (driftdeck.io/paused-* annotations). Units with nothing to pause are skipped.", t.Dim)
		case actions.Resume:
			wrap("Each unit gets back exactly the state its pause recorded; a unit changed since its pause is left alone and reported.", t.Dim)
		}
	} else if c := d.custom; c != nil {
		wrap(c.title, t.DialogTitle)
		for _, l := range c.lines {
			wrap(l, lipgloss.NewStyle())
		}
		for _, w := range c.warnings {
			wrap("! "+w, t.Warn)
		}
	} else {
		switch {
		case d.planning && d.plan == nil:
			lines = append(lines, t.Dim.Render("reading the object…"))
		case d.planErr != nil:
			wrap("Cannot "+string(d.action)+": "+d.planErr.Error(), t.Bad)
		case d.plan != nil:
			wrap(capitalize(d.plan.Summary), t.DialogTitle)
			lines = append(lines, t.Bold.Render("Will write:"))
			for _, c := range d.plan.Changes {
				wrap("  "+c, lipgloss.NewStyle())
			}
			for _, w := range d.plan.Warnings {
				wrap("! "+w, t.Warn)
			}
			lines = append(lines, t.Dim.Render(fmt.Sprintf("JSON patch on resourceVersion %s, %d operations, tests first.", d.plan.ResourceVersion, len(d.plan.Patch))))
		}
	}
	lines = append(lines, "")
	label := func(i int, name string) string {
		if d.focus == i {
			return t.Accent.Render("› " + name)
		}
		return "  " + name
	}
	lines = append(lines, label(0, "Reason: ")+d.reason.View())
	if needsUntil(d.action) {
		lines = append(lines, label(1, "Until:  ")+d.until.View())
	}
	if d.err != "" {
		wrap(d.err, t.Bad)
	}
	lines = append(lines, "")
	no, yes := " No ", " Yes "
	if d.yes {
		yes = t.Selected.Render(yes)
	} else {
		no = t.Selected.Render(no)
	}
	buttons := "   " + no + "   " + yes
	if d.focus < len(d.inputs) {
		buttons = t.Dim.Render("   [ No ]   [ Yes ]   (enter to reach)")
	}
	if d.running {
		buttons = t.Info.Render("   working…")
	}
	lines = append(lines, buttons)
	return lines
}

func titleOf(k actions.Kind) string {
	switch k {
	case actions.Pause:
		return "Freeze: pause"
	case actions.Resume:
		return "Thaw: resume"
	}
	return capitalize(string(k))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
