package detail

import (
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// rootFacts is what only a root module has: where its state is, who holds
// its lock, its last plan, and what its state holds.
func (m *Model) rootFacts(f *model.RootFacts, now time.Time) []string {
	out := []string{"", m.heading("Root module")}
	out = append(out, m.text("  directory", f.Dir)...)
	out = append(out, m.field("  workspace", v(m.unit.Key.Namespace)+m.theme.Dim.Render(" · backend ")+v(orDash(f.Backend))))
	if f.ReadError != "" {
		out = append(out, m.theme.Bad.Render("  state not read:"))
		out = append(out, m.indented(4, f.ReadError, m.theme.Bad)...)
	}
	state := m.theme.Dim.Render("none yet (never applied)")
	if f.Serial > 0 {
		state = fmt.Sprintf("serial %d", f.Serial) + m.theme.Dim.Render(" · lineage "+v(f.Lineage))
		if f.TofuVersion != "" {
			state += m.theme.Dim.Render(" · written by " + v(f.TofuVersion))
		}
	}
	out = append(out, m.field("  state", state))
	if !f.AppliedAt.IsZero() {
		out = append(out, m.field("  written", f.AppliedAt.Local().Format(time.DateTime)+m.theme.Dim.Render(" ("+model.HumanDuration(now.Sub(f.AppliedAt))+" ago)")))
	}
	out = append(out, m.rootLock(f, now)...)
	out = append(out, m.rootPlan(f, now)...)
	if len(f.Resources) > 0 {
		out = append(out, "", m.heading(fmt.Sprintf("Resources (%d)", len(f.Resources))))
		for _, r := range f.Resources {
			out = append(out, "  "+v(r))
		}
	}
	if len(f.Outputs) > 0 {
		out = append(out, "", m.heading("Outputs"))
		for _, o := range f.Outputs {
			val := v(o.Value)
			if o.Sensitive {
				val = m.theme.Dim.Render("(sensitive)")
			}
			out = append(out, m.field("  "+v(o.Name), val))
		}
	}
	return out
}

func (m *Model) rootLock(f *model.RootFacts, now time.Time) []string {
	l := f.Lock
	switch {
	case l == nil && f.LockUnread != "":
		return m.text("  lock", "not read: "+f.LockUnread)
	case l == nil:
		return []string{m.field("  lock", m.theme.Dim.Render("not held"))}
	}
	held := "held by " + v(orDash(l.Who)) + " for " + v(orDash(l.Operation))
	if !l.Created.IsZero() {
		held += m.theme.Dim.Render(" since " + model.HumanDuration(now.Sub(l.Created)))
	}
	// The id is shown whole: a force unlock names exactly it.
	return []string{m.field("  lock", m.theme.Warn.Render(held)), m.field("  lock id", v(l.ID))}
}

func (m *Model) rootPlan(f *model.RootFacts, now time.Time) []string {
	out := []string{"", m.heading("Last plan")}
	p := f.Plan
	if p == nil {
		return append(out, m.theme.Dim.Render("  none saved: plan it to see what an apply would change"))
	}
	out = append(out, m.field("  plan", v(p.ID)))
	out = append(out, m.field("  made", model.HumanDuration(now.Sub(p.At))+" ago by "+v(p.By)+m.theme.Dim.Render(fmt.Sprintf(" against serial %d", p.Serial))))
	out = append(out, m.field("  changes", v(p.Summary)))
	switch {
	case p.Applied:
		out = append(out, m.field("  status", m.theme.Good.Render("applied")))
	case p.Serial != f.Serial || p.Lineage != f.Lineage:
		out = append(out, m.field("  status", m.theme.Warn.Render("stale: the state changed since; plan again")))
	case p.Changes:
		out = append(out, m.field("  status", m.theme.Info.Render("waits to be applied")))
	default:
		out = append(out, m.field("  status", m.theme.Good.Render("nothing to apply")))
	}
	return out
}
