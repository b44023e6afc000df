package detail

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/workspace"
	"github.com/driftdeck/driftdeck/views/internal/wrapped"
)

// labelWidth is the width of the labels in front of the overview's values.
const labelWidth = 14

// field is one line: a label and a value that is ours or already escaped.
func (m *Model) field(name, value string) string {
	return m.theme.Dim.Render(fmt.Sprintf("%-*s", labelWidth, name)) + value
}

// text is a label and a value from outside (a message, a rule, a remedy):
// escaped, and wrapped under the label instead of cut at the screen's edge.
func (m *Model) text(name, value string) []string {
	return wrapped.Field(name, labelWidth, value, m.wrapWidth(), m.theme.Dim)
}

// indented is text from outside wrapped at an indent, each line styled.
func (m *Model) indented(indent int, value string, st lipgloss.Style) []string {
	lines := wrapped.Lines(value, m.wrapWidth()-indent)
	for i, l := range lines {
		lines[i] = strings.Repeat(" ", indent) + st.Render(l)
	}
	return lines
}

// wrapWidth is the width text wraps to; a view not sized yet wraps at 80.
func (m *Model) wrapWidth() int {
	if m.width <= 0 {
		return 80
	}
	return max(m.width, labelWidth+20)
}

// v escapes a one-line value from outside.
func v(s string) string { return safetext.Visible(s) }

func (m *Model) heading(s string) string { return m.theme.Bold.Render(s) }

func (m *Model) overview(now time.Time) []string {
	u := m.unit
	var out []string
	out = append(out, m.field("Sync", u.Sync.String()+native(u.SyncNative)))
	if u.Drift != nil {
		out = append(out, m.text("  drift", u.Drift.String())...)
	}
	out = append(out, m.field("Health", u.Health.String()+native(u.HealthNative)))
	out = append(out, m.field("Automation", u.Automation.String()+native(u.AutomationNative)))
	run := u.Run.String()
	if !u.RunSince.IsZero() {
		run += " for " + model.HumanDuration(now.Sub(u.RunSince))
	}
	out = append(out, m.field("Run", run))
	if u.RunReason != "" {
		out = append(out, m.text("  why", u.RunReason)...)
	}
	if u.StuckRule != "" {
		out = append(out, m.text("  rule", u.StuckRule)...)
	}
	if u.Window != "" {
		out = append(out, m.text("Sync window", u.Window)...)
	}
	out = append(out, m.field("Can do", m.enabledActions()))
	out = append(out, m.field("Desired", v(orDash(u.Desired))), m.field("Applied", v(orDash(u.Applied))))
	if u.Project != "" {
		label := "Project"
		if u.Stack != nil {
			label = "Pulumi stack"
		}
		out = append(out, m.field(label, v(u.Project)))
	}
	if u.Owner != "" {
		out = append(out, m.field("Owner", v(u.Owner)+m.theme.Warn.Render("  (reverts spec edits)")))
	}
	out = append(out, m.pause(now)...)
	out = append(out, m.changeRequest()...)
	out = append(out, m.engineFacts(now)...)
	if len(u.ReadErrors) > 0 {
		out = append(out, "", m.theme.Bad.Render("Could not read"))
		for _, e := range u.ReadErrors {
			out = append(out, m.indented(2, e, lipgloss.NewStyle())...)
		}
	}
	if disabled := m.disabledActions(); len(disabled) > 0 {
		out = append(out, "", m.heading("Not possible now"))
		out = append(out, disabled...)
	}
	if m.loadErr != "" {
		out = append(out, "")
		out = append(out, m.notLoaded()...)
	} else if m.detail != nil {
		for _, p := range m.detail.Problems {
			out = append(out, m.indented(0, "note: "+p, m.theme.Warn)...)
		}
	}
	return out
}

func native(s string) string {
	if s == "" {
		return ""
	}
	return " (" + v(s) + ")"
}

// changeRequest is the unit's open change request: what is asked, by whom, and
// where it stands (`:requests` reviews it).
func (m *Model) changeRequest() []string {
	r := m.unit.Request
	if r == nil {
		return nil
	}
	out := []string{"", m.heading("Change request open")}
	out = append(out, m.field("  request", v(r.Ref)))
	out = append(out, m.field("  asks", v(string(r.Action))+" by "+v(r.Requester)))
	out = append(out, m.field("  state", fmt.Sprintf("%s, %d of %d approvals", v(r.Phase), r.Approvals, r.Required)))
	return out
}

func (m *Model) pause(now time.Time) []string {
	p := m.unit.Pause
	if p == nil {
		return nil
	}
	out := []string{"", m.heading("Paused by driftdeck")}
	out = append(out, m.field("  by", v(p.By)))
	out = append(out, m.text("  why", p.Reason)...)
	out = append(out, m.field("  at", p.At.Format(time.RFC3339)))
	switch {
	case p.Until.IsZero():
		out = append(out, m.field("  until", "no expiry"))
	case p.Expired(now):
		out = append(out, m.field("  until", m.theme.Bad.Render(p.Until.Format(time.RFC3339)+" — EXPIRED "+model.HumanDuration(now.Sub(p.Until))+" ago: resume or extend")))
	default:
		out = append(out, m.field("  until", p.Until.Format(time.RFC3339)+" (in "+model.HumanDuration(p.Until.Sub(now))+")"))
	}
	if m.detail != nil && m.detail.Agent != nil {
		if ends := m.detail.Agent.Ends(p, now); ends != "" {
			out = append(out, m.text("  ends", ends)...)
		}
	}
	out = append(out, m.field("  mode", v(p.Mode)))
	out = append(out, m.text("  previous", p.Previous)...)
	if m.unit.Automation != model.Paused {
		out = append(out, m.theme.Bad.Render("  the pause is no longer in force: the policy changed after it (reverted by an owner or edited by hand)"))
	}
	return out
}

func (m *Model) engineFacts(now time.Time) []string {
	var out []string
	if f := m.unit.Argo; f != nil {
		out = append(out, "", m.heading("Source"))
		out = append(out, m.field("  repo", v(orDash(f.RepoURL))), m.field("  path", v(orDash(f.Path))), m.field("  revision", v(f.TargetRevision)))
		dest := f.DestServer
		if dest == "" {
			dest = f.DestName
		}
		out = append(out, m.field("  destination", v(dest+" ns "+orDash(f.DestNamespace))))
		if r := f.Resources; r.Synced+r.OutOfSync+r.Other > 0 {
			counts := fmt.Sprintf("%d synced, %d out of sync", r.Synced, r.OutOfSync)
			if r.Other > 0 {
				counts += fmt.Sprintf(", %d other", r.Other)
			}
			if f.PruneRequired {
				counts += ", some require pruning"
			}
			out = append(out, m.field("  resources", counts))
		}
		out = append(out, "", m.heading("Operation"))
		if f.Phase == "" && !f.OperationSet {
			out = append(out, m.theme.Dim.Render("  none"))
		} else {
			op := v(orDash(f.Phase))
			if f.OperationSet && f.Phase == "" {
				op = "requested, not started"
			}
			out = append(out, m.field("  phase", op))
			if f.PhaseMessage != "" {
				out = append(out, m.text("  message", f.PhaseMessage)...)
			}
			if !f.StartedAt.IsZero() {
				out = append(out, m.field("  started", f.StartedAt.Format(time.RFC3339)+" ("+model.HumanDuration(now.Sub(f.StartedAt))+" ago)"))
			}
			if !f.FinishedAt.IsZero() {
				out = append(out, m.field("  finished", f.FinishedAt.Format(time.RFC3339)))
			}
			if f.RetryCount > 0 {
				out = append(out, m.field("  retries", fmt.Sprint(f.RetryCount)))
			}
		}
		if !f.ReconciledAt.IsZero() {
			out = append(out, m.field("Compared", model.HumanDuration(now.Sub(f.ReconciledAt))+" ago"))
		}
		if f.RefreshPending != "" {
			out = append(out, m.field("Refresh", v(f.RefreshPending)+" refresh requested, waiting for the controller"))
		}
		out = append(out, m.conditions(f.Conditions, now)...)
	}
	if f := m.unit.Stack; f != nil {
		out = append(out, "", m.heading("Stack"))
		src := f.ProjectRepo
		if f.RepoDir != "" {
			src += " dir " + f.RepoDir
		}
		out = append(out, m.field("  source", v(orDash(src))))
		if f.Commit != "" {
			out = append(out, m.field("  pinned", v(f.Commit)))
		} else if f.Branch != "" {
			out = append(out, m.field("  branch", v(f.Branch)))
		}
		if f.PendingCommit != "" {
			out = append(out, m.field("  proposed", v(f.PendingCommit)+m.theme.Info.Render("  waits for approval")))
		}
		if f.Preview {
			out = append(out, m.field("  preview", "true: runs previews only, applies nothing"))
		}
		if f.DestroyOnFinalize {
			out = append(out, m.field("  on delete", m.theme.Warn.Render("destroys what it manages (destroyOnFinalize): deleting this Stack, or pruning it, runs pulumi destroy")))
		}
		for _, ref := range f.SecretRefs {
			secret := ref.Namespace + "/" + ref.Name
			if ref.Key != "" {
				secret += " key " + ref.Key
			}
			out = append(out, m.field("  secret", v(ref.Field+": "+secret)))
		}
		for _, field := range f.Literals {
			out = append(out, m.field("  secret", v(field)+m.theme.Warn.Render("  written in the spec: whoever may read the Stack reads it")))
		}
		out = append(out, m.field("  last update", v(fmt.Sprintf("%s %s", orDash(f.LastUpdateName), orDash(f.LastState)))))
		if f.LastFailures > 0 {
			out = append(out, m.field("  failures", fmt.Sprint(f.LastFailures)))
		}
		if f.LastMessage != "" {
			out = append(out, m.text("  message", f.LastMessage)...)
		}
		if f.CurrentUpdate != "" {
			out = append(out, m.field("  current", v(f.CurrentUpdate)))
		}
		if m.detail != nil && len(m.detail.MemoryKills) > 0 {
			for _, k := range m.detail.MemoryKills {
				out = append(out, m.field("  workspace", m.theme.Bad.Render(v(k.Text(now)))))
			}
			out = append(out, m.field("  advice", workspace.Advice+", then retry"))
		}
		req := v(orDash(f.RequestedRequest))
		if f.RequestedRequest != "" {
			if f.RequestedRequest == f.LastRequest {
				req += m.theme.Good.Render("  handled")
			} else {
				req += m.theme.Warn.Render("  not handled yet (observed " + v(orDash(f.ObservedRequest)) + ", last run for " + v(orDash(f.LastRequest)) + ")")
			}
		}
		out = append(out, m.field("  run request", req))
		out = append(out, m.conditions(f.Conditions, now)...)
	}
	if f := m.unit.Flux; f != nil {
		out = append(out, m.fluxFacts(f, now)...)
		if f.Helm != nil {
			out = append(out, m.helmFacts(f.Helm, now)...)
		}
		out = append(out, m.conditions(f.Conditions, now)...)
	}
	if f := m.unit.Tofu; f != nil {
		out = append(out, m.fluxFacts(&f.FluxFacts, now)...)
		out = append(out, m.tofuFacts(f, now)...)
		out = append(out, m.conditions(f.Conditions, now)...)
	}
	if f := m.unit.Root; f != nil {
		out = append(out, m.rootFacts(f, now)...)
	}
	return out
}

func (m *Model) conditions(cs []model.Condition, now time.Time) []string {
	if len(cs) == 0 {
		return nil
	}
	out := []string{"", m.heading("Conditions")}
	for _, c := range cs {
		line := fmt.Sprintf("  %-12s %-6s %-24s", v(c.Type), v(c.Status), v(c.Reason))
		if !c.Since.IsZero() {
			line += " " + model.HumanDuration(now.Sub(c.Since)) + " ago"
		}
		st := m.theme.Dim
		if c.Type == "Stalled" && c.Status == "True" || strings.HasSuffix(c.Type, "Error") {
			st = m.theme.Bad
		}
		out = append(out, st.Render(line))
		if c.Message != "" {
			out = append(out, m.indented(6, c.Message, lipgloss.NewStyle())...)
		}
	}
	return out
}

// notLoaded stands in a tab until the unit's details are read: the read's
// error when it failed, not a "loading…" that never ends.
func (m *Model) notLoaded() []string {
	if m.loadErr != "" {
		return m.indented(0, "Could not load details: "+m.loadErr, m.theme.Bad)
	}
	return []string{m.theme.Dim.Render("loading…")}
}

func (m *Model) resources() []string {
	if m.detail == nil {
		return m.notLoaded()
	}
	if m.unit.Stack != nil {
		return m.updates()
	}
	if len(m.detail.Resources) == 0 {
		return []string{m.theme.Dim.Render("no resources recorded in status")}
	}
	out := []string{m.theme.TableHeader.Render(fmt.Sprintf("%-11s %-12s %-22s %-36s %s", "STATUS", "HEALTH", "KIND", "NAMESPACE/NAME", "NOTE"))}
	for _, r := range m.detail.Resources {
		note := r.Message
		if r.RequiresPruning {
			note = "requires pruning " + note
		}
		line := v(fmt.Sprintf("%-11s %-12s %-22s %-36s %s", r.Status, orDash(r.Health), r.Kind, r.Namespace+"/"+r.Name, note))
		if r.Status == "OutOfSync" {
			line = m.theme.Warn.Render(line)
		}
		out = append(out, line)
	}
	return out
}

func (m *Model) updates() []string {
	if len(m.detail.Updates) == 0 {
		return []string{m.theme.Dim.Render("no Update objects (operator v1 runs pulumi in-process, or none yet)")}
	}
	out := []string{m.theme.TableHeader.Render(fmt.Sprintf("%-34s %-8s %-10s %-20s %s", "UPDATE", "TYPE", "PHASE", "STARTED", "MESSAGE"))}
	for _, up := range m.detail.Updates {
		started := "-"
		if !up.Started.IsZero() {
			started = up.Started.Format("2006-01-02 15:04:05")
		}
		line := v(fmt.Sprintf("%-34s %-8s %-10s %-20s %s", up.Name, up.Type, up.Phase(), started, up.Message))
		if up.Failed {
			line = m.theme.Bad.Render(line)
		}
		out = append(out, line)
	}
	return out
}

func (m *Model) history(now time.Time) []string {
	if m.detail == nil {
		return m.notLoaded()
	}
	if len(m.detail.History) == 0 {
		return []string{m.theme.Dim.Render("no deployments recorded")}
	}
	out := []string{m.theme.TableHeader.Render(fmt.Sprintf("  %-4s %-42s %-12s %s", "ID", "REVISION", "DEPLOYED", "BY"))}
	for i, h := range m.detail.History {
		line := v(fmt.Sprintf("%-4d %-42s %-12s %s", h.ID, h.Revision, model.HumanDuration(now.Sub(h.DeployedAt))+" ago", h.InitiatedBy))
		if i == m.historyCursor {
			// The glyph shows the cursor where no colour does (TERM=dumb).
			line = m.theme.Selected.Render("> " + line)
		} else {
			line = "  " + line
		}
		out = append(out, line)
	}
	return out
}

func (m *Model) events(now time.Time) []string {
	if m.detail == nil {
		return m.notLoaded()
	}
	if len(m.detail.Events) == 0 {
		return []string{m.theme.Dim.Render("no recent events for this object")}
	}
	out := []string{m.theme.TableHeader.Render(fmt.Sprintf("%-8s %-8s %-24s %-14s %s", "AGE", "TYPE", "REASON", "FROM", "MESSAGE"))}
	for _, e := range m.detail.Events {
		line := v(fmt.Sprintf("%-8s %-8s %-24s %-14s %s", model.HumanDuration(now.Sub(e.Last)), e.Type, e.Reason, e.Source, e.Message))
		if e.Type == "Warning" {
			line = m.theme.Warn.Render(line)
		}
		out = append(out, line)
	}
	return out
}

func (m *Model) yaml() []string {
	if m.detail == nil {
		return m.notLoaded()
	}
	return strings.Split(safetext.Block(strings.TrimRight(m.detail.YAML, "\n")), "\n")
}

// enabledActions is one line: what can be done now (a opens the menu).
func (m *Model) enabledActions() string {
	if m.avail == nil {
		return m.theme.Dim.Render("checking permissions…")
	}
	if len(m.avail) == 0 {
		return m.theme.Warn.Render("nothing: " + NoActions(m.unit.Key.Engine))
	}
	var on []string
	for _, a := range m.avail {
		if a.Enabled {
			on = append(on, m.theme.Good.Render(m.kindName(a.Kind)))
		}
	}
	if len(on) == 0 {
		return m.theme.Warn.Render("nothing now (each action's reason is under Not possible now)")
	}
	return strings.Join(on, m.theme.Dim.Render(" · "))
}

// kindName names an action on this unit: on a root module the replan key
// runs its first plan as well as the next.
func (m *Model) kindName(k model.ActionKind) string {
	if m.unit.Key.Engine == model.EngineRoot && k == "replan" {
		return "plan"
	}
	return string(k)
}

// NoActions says why a unit of an engine without actions has none.
func NoActions(e model.Engine) string {
	if e == model.EngineApplicationSet {
		return "driftdeck has no actions for ApplicationSets; the Applications it generates have theirs"
	}
	return "driftdeck has no actions for " + string(e) + " units"
}

func (m *Model) disabledActions() []string {
	var out []string
	for _, a := range m.avail {
		if !a.Enabled {
			out = append(out, m.indented(2, m.kindName(a.Kind)+" — "+a.WhyNot, m.theme.Dim)...)
		}
	}
	return out
}
