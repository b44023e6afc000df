package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

func (d *dialog) view(a *App, now time.Time) string {
	t := a.theme
	inner := min(max(d.width-8, 20), 100)
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
		for i, e := range d.entries() {
			line := e.label(a, d.units[0])
			switch {
			case i == d.cursor:
				// The cursor is a mark too, not only a colour.
				wrap("> "+line, t.Selected)
			case e.Enabled:
				add("  " + line)
			default:
				add(t.Dim.Render("  " + line))
			}
		}
	case dlgReport:
		// Every unit's line can be read: the lines scroll under the count.
		var title []string
		for i, r := range d.report {
			st := lipgloss.NewStyle()
			if i == 0 {
				st = t.DialogTitle
			}
			if r.bad {
				st = t.Bad
			}
			wrap(safetext.Visible(r.text), st)
			if i == 0 {
				title, lines = lines, nil
			}
		}
		lines = d.layoutConfirm(a, title, lines, nil, max(d.height-2, 3))
	default:
		// What is asked (reason, options, buttons) always shows whole; the
		// write block between the title and them scrolls.
		title, body, controls := d.confirmLines(a, inner, now)
		lines = d.layoutConfirm(a, title, body, controls, max(d.height-2, 3))
	}
	lines = fitRoom(truncateAll(lines, inner), max(d.height-2, 3), t.Dim.Render("… (more: enlarge the terminal)"))
	box := t.Dialog.Width(inner + 4).Render(strings.Join(lines, "\n"))
	return centered(d.width, d.height, box)
}

// centered places block in the middle of a width x height area, where
// lipgloss.Place(width, height, Center, Center, block) puts it, padded with
// plain spaces. Place measured the width of every padding cell and styled
// each run of them: a fifth of a race-built workbench's CPU while a reason
// was typed into a dialog (a frame each key), on a busy machine enough to
// fall seconds behind the keys.
func centered(width, height int, block string) string {
	lines := strings.Split(block, "\n")
	widths := make([]int, len(lines))
	blockWidth := 0
	for i, l := range lines {
		widths[i] = ansi.StringWidth(l)
		blockWidth = max(blockWidth, widths[i])
	}
	// Each half of a gap, the larger one after (right, below), as Place.
	halves := func(gap int) (before, after int) { return gap / 2, gap - gap/2 }
	if width > blockWidth {
		for i, l := range lines {
			left, right := halves(width - widths[i])
			lines[i] = strings.Repeat(" ", left) + l + strings.Repeat(" ", right)
		}
	}
	top, bottom := halves(max(height-len(lines), 0))
	empty := strings.Repeat(" ", max(width, blockWidth))
	out := make([]string, 0, top+len(lines)+bottom)
	for range top {
		out = append(out, empty)
	}
	out = append(out, lines...)
	for range bottom {
		out = append(out, empty)
	}
	return strings.Join(out, "\n")
}

// confirmLines are a confirmation's title, its body (what will be written,
// to which objects) and its controls (the reason, options and buttons).
func (d *dialog) confirmLines(a *App, inner int, now time.Time) (title, body, controls []string) {
	t := a.theme
	var lines []string
	wrap := func(s string, st lipgloss.Style) {
		for _, l := range strings.Split(ansi.Wrap(s, inner, ""), "\n") {
			lines = append(lines, st.Render(l))
		}
	}
	// heading ends the title: what follows is the body.
	heading := func(s string) {
		wrap(s, t.DialogTitle)
		title, lines = lines, nil
	}
	switch {
	case d.kind == dlgBulk:
		heading(fmt.Sprintf("%s %d units:", titleOf(d.action), len(d.units)))
		switch n := len(d.hidden); {
		case n == len(d.units):
			wrap(fmt.Sprintf("! all %d are hidden by the current filter or scope", n), t.Warn)
		case n > 0:
			wrap(fmt.Sprintf("! %d of them are hidden by the current filter or scope: %s", n, strings.Join(refs(d.hidden), ", ")), t.Warn)
		}
		wrap(bulkExplanation(d.action), t.Dim)
		// Every target is named with its write: none may be acted on unseen.
		for _, l := range d.bulkPlanLines(a) {
			wrap(l.text, l.style)
		}
		if !d.ownerRead {
			if l := ownerWrites(d.action, d.units); l != "" {
				wrap(l+" (reading the exact entries…)", t.Bold)
			}
		}
		for _, w := range d.ownerWrites {
			heading, entries := ownerWriteLines(w)
			wrap(heading, t.Bold)
			for _, l := range entries {
				wrap(l, lipgloss.NewStyle())
			}
		}
	case d.custom != nil:
		// What it names (a lock's holder, a stack) comes from a state
		// backend: shown with its escapes visible.
		c := d.custom
		heading(safetext.Visible(c.title))
		for _, l := range c.lines {
			wrap(safetext.Visible(l), lipgloss.NewStyle())
		}
		for _, w := range c.warnings {
			wrap("! "+safetext.Visible(w), t.Warn)
		}
	default:
		switch {
		case d.planning && d.plan == nil:
			heading(capitalize(string(d.action)) + " " + d.units[0].Key.Ref())
			lines = append(lines, t.Dim.Render("reading the object…"))
		case d.planErr != nil:
			heading(capitalize(string(d.action)) + " " + d.units[0].Key.Ref())
			wrap("Cannot "+string(d.action)+": "+safetext.Visible(d.planErr.Error()), t.Bad)
		case d.plan != nil && d.asking != "":
			heading("Ask for: " + safetext.Visible(d.plan.Summary))
			wrap("You may not write this yourself ("+safetext.Visible(d.asking)+"). Yes stores exactly the write below in a change request: another person approves it, and the agent applies it as shown, or nothing.", t.Warn)
			for _, l := range append(planLines(t, d.plan, "", true), d.forecastLines(a, d.plan.Request.Key, true)...) {
				wrap(l.text, l.style)
			}
		case d.plan != nil:
			heading(capitalize(safetext.Visible(d.plan.Summary)))
			for _, l := range append(planLines(t, d.plan, "", true), d.forecastLines(a, d.plan.Request.Key, true)...) {
				wrap(l.text, l.style)
			}
		}
		if len(d.changed) > 0 {
			wrap("! Changed since shown — confirm again:", t.Warn)
			for _, c := range d.changed {
				wrap("  "+safetext.Visible(c), t.Warn)
			}
		}
	}
	body, lines = lines, []string{""}
	if d.refused() {
		return title, body, append(lines, t.Dim.Render("Nothing will be written. esc closes."))
	}
	label := func(i int, name string) string {
		if d.focus == i {
			return t.Accent.Render("› " + name)
		}
		return "  " + name
	}
	lines = append(lines, label(0, "Reason: ")+fieldView(&d.reason))
	if specOf(d.action).TakesUntil {
		lines = append(lines, label(1, "Until:  ")+fieldView(&d.until))
	}
	for i, opt := range d.options {
		box := "[ ]"
		if opt.on {
			box = "[x]"
		}
		lines = append(lines, label(len(d.inputs)+i, box+" "+opt.label))
		for _, l := range opt.detail {
			wrap("      "+l, t.Dim)
		}
	}
	if len(d.changed) > 0 {
		// Beside the buttons, which stay in view when the plan scrolls: a
		// yes that met a changed plan wrote nothing, and says so here.
		wrap("! The plan changed since shown (see its end): nothing was written; confirm again", t.Warn)
	}
	if d.err != "" {
		wrap(safetext.Visible(d.err), t.Bad)
	}
	lines = append(lines, "", d.buttonLine(a))
	return title, body, lines
}

// buttonLine draws No and Yes. The focused one is bracketed with > <, so it
// shows without colour (TERM=dumb, the no-color theme) as well.
func (d *dialog) buttonLine(a *App) string {
	t := a.theme
	switch {
	case d.running:
		return t.Info.Render("   working…")
	case d.focus < d.buttons():
		return t.Dim.Render("     [ No ]     [ Yes ]     (enter to reach)")
	}
	no, yes := "  [ No ]  ", "  [ Yes ]  "
	if d.yes {
		yes = t.Selected.Render("> [ Yes ] <")
	} else {
		no = t.Selected.Render("> [ No ] <")
	}
	line := "   " + no + "   " + yes
	if d.opensForecasts() {
		line += t.Dim.Render("   " + a.keys.Diff.Help().Key + ": what each unit's controller will change")
	}
	return line
}

func bulkExplanation(k actions.Kind) string {
	switch k {
	case actions.Pause:
		return "Each unit's automation is switched off and its exact previous state, who, why, when and until are recorded on the object (driftdeck.io/paused-* annotations). Units with nothing to pause are skipped."
	case actions.Resume:
		return "Each unit gets back exactly the state its pause recorded; a unit changed since its pause is left alone and reported."
	}
	return "Units for which there is nothing to do, or whose engine has no " + string(k) + ", are skipped and reported as such."
}

// ownerWrites names the ApplicationSets a bulk pause or resume also
// writes: one ignoreApplicationDifferences entry per child it owns (ADR 0014).
func ownerWrites(k actions.Kind, units []*model.Unit) string {
	if k != actions.Pause && k != actions.PauseSelfHeal && k != actions.Resume {
		return ""
	}
	count := map[string]int{}
	var sets []string
	for _, u := range units {
		name, ok := strings.CutPrefix(u.Owner, "ApplicationSet/")
		if !ok || u.Key.Engine != model.EngineArgoCD {
			continue
		}
		ref := "applicationset/" + u.Key.Namespace + "/" + name
		if count[ref] == 0 {
			sets = append(sets, ref)
		}
		count[ref]++
	}
	if len(sets) == 0 {
		return ""
	}
	var each []string
	for _, s := range sets {
		each = append(each, fmt.Sprintf("%s (%d)", s, count[s]))
	}
	verb := "Also writes, so that each pause holds, one ignoreApplicationDifferences entry per child to "
	if k == actions.Resume {
		verb = "Also removes the ignoreApplicationDifferences entry each child's pause added from "
	}
	return verb + strings.Join(each, ", ")
}

// ownerWriteShown bounds the children a bulk dialog names per
// ApplicationSet write; the rest are counted.
const ownerWriteShown = 24

// ownerWriteLines says what a bulk action writes to one ApplicationSet: a
// heading naming the object and when, then the entries, each {name: the
// child, jsonPointers: ...}: the pointers once for the children whose
// entries share them, then those children's names.
func ownerWriteLines(w actions.OwnerWrite) (string, []string) {
	obj := safetext.Visible(w.Object)
	var heading string
	switch {
	case w.Remove:
		heading = fmt.Sprintf("Also removes from %s, after each child is resumed, the ignoreApplicationDifferences entry its pause added (%d):", obj, len(w.Entries))
	case w.OnePatch:
		heading = fmt.Sprintf("Also adds to %s spec.ignoreApplicationDifferences, in one patch before any child is paused, %d entries:", obj, len(w.Entries))
	default:
		heading = fmt.Sprintf("Also adds to %s spec.ignoreApplicationDifferences, before the child's pause:", obj)
	}
	sign := "+"
	if w.Remove {
		sign = "-"
	}
	type group struct {
		pointers string
		names    []string
	}
	var groups []*group
	for _, en := range w.Entries {
		var pointers []string
		if ps, ok := en["jsonPointers"].([]any); ok {
			for _, p := range ps {
				pointers = append(pointers, fmt.Sprint(p))
			}
		}
		joined := strings.Join(pointers, " ")
		if len(groups) == 0 || groups[len(groups)-1].pointers != joined {
			groups = append(groups, &group{pointers: joined})
		}
		name, _ := en["name"].(string)
		g := groups[len(groups)-1]
		g.names = append(g.names, name)
	}
	var lines []string
	named := 0
	for _, g := range groups {
		if named == ownerWriteShown {
			break
		}
		names := g.names[:min(len(g.names), ownerWriteShown-named)]
		named += len(names)
		lines = append(lines, safetext.Visible("  "+sign+" jsonPointers: "+g.pointers),
			safetext.Visible("    for name: "+strings.Join(names, ", ")))
	}
	if rest := len(w.Entries) - named; rest > 0 {
		lines = append(lines, fmt.Sprintf("  … and %d more entries (--dry-run on the command line prints every write)", rest))
	}
	return heading, lines
}

func refs(units []*model.Unit) []string {
	out := make([]string, len(units))
	for i, u := range units {
		out[i] = u.Key.Ref()
	}
	return out
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
