package detail

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
)

// fluxFacts is the Flux runtime part shared by Kustomizations, HelmReleases
// and Terraforms, in the controllers' own words: the source and whether the
// controller could read it, revisions attempted vs applied, dependsOn that
// is not ready, suspend, and the reconcile request and its handling.
func (m *Model) fluxFacts(f *model.FluxFacts, now time.Time) []string {
	out := []string{"", m.heading(m.unit.Kind)}
	ready := condition(f.Conditions, "Ready")
	switch src := m.unit.SourceState; {
	case src != nil:
		out = append(out, m.sourceState(src, now)...)
	case ready != nil && ready.Status == "False" && ready.Reason == "ArtifactFailed":
		out = append(out, m.fieldNote("  source", f.Source.String(), "not ready", m.theme.Bad)...)
		out = append(out, m.text("", ready.Message)...)
	case ready != nil && ready.Status == "True":
		out = append(out, m.fieldNote("  source", f.Source.String(), "ready (its artifact was read)", m.theme.Good)...)
	default:
		out = append(out, m.field("  source", v(orDash(f.Source.String()))))
	}
	out = append(out, m.field("  attempted", v(orDash(f.LastAttempted))))
	if f.LastAttempted != "" && f.LastApplied != "" && f.LastAttempted != f.LastApplied {
		out = append(out, m.fieldNote("  applied", f.LastApplied, "(not the attempted one)", m.theme.Warn)...)
	} else {
		out = append(out, m.field("  applied", v(orDash(f.LastApplied))))
	}
	if len(f.DependsOn) > 0 {
		note := ""
		if ready != nil && ready.Status == "False" && ready.Reason == "DependencyNotReady" {
			note = "not ready"
		}
		out = append(out, m.fieldNote("  depends on", strings.Join(f.DependsOn, ", "), note, m.theme.Warn)...)
		if ready != nil && ready.Reason == "DependencyNotReady" {
			out = append(out, m.text("", ready.Message)...)
		}
	}
	interval := v(orDash(f.Interval))
	if f.Suspended {
		interval += m.theme.Warn.Render("  suspend: true")
	}
	out = append(out, m.field("  interval", interval))
	out = append(out, m.field("  reconcile", m.request(f.RequestedAt, f.LastHandledAt)))
	if m.unit.Generation > 0 {
		gen := fmt.Sprintf("%d, observed %d", m.unit.Generation, f.ObservedGen)
		if f.ObservedGen != m.unit.Generation {
			gen += m.theme.Warn.Render("  (the controller has not seen the latest spec)")
		}
		out = append(out, m.field("  generation", gen))
	}
	return out
}

// sourceState is the source as the source-controller reports it: ready
// with the revision the unit reads, or why it is not.
func (m *Model) sourceState(src *model.SourceState, now time.Time) []string {
	name := src.Ref.String()
	switch {
	case src.Missing:
		return m.fieldNote("  source", name, "does not exist", m.theme.Bad)
	case src.Suspended:
		return m.fieldNote("  source", name, "suspended: not fetched until resumed", m.theme.Warn)
	case src.Ready == "True":
		out := m.fieldNote("  source", name, "ready", m.theme.Good)
		return append(out, m.field("  artifact", v(orDash(src.Revision))))
	case src.Ready == "False":
		note := "not ready"
		if !src.Since.IsZero() {
			note += " for " + model.HumanDuration(now.Sub(src.Since))
		}
		out := m.fieldNote("  source", name, note, m.theme.Bad)
		return append(out, m.text("", src.Reason+": "+src.Message)...)
	}
	return m.fieldNote("  source", name, "not fetched yet", m.theme.Warn)
}

// fieldNote is a value from outside with a note of ours after it, on one
// line when both fit, else wrapped whole under the label (a long name is
// never cut at the screen's edge).
func (m *Model) fieldNote(name, value, note string, st lipgloss.Style) []string {
	if note == "" {
		return m.text(name, value)
	}
	if labelWidth+ansi.StringWidth(v(value))+2+len(note) <= m.wrapWidth() {
		return []string{m.field(name, v(value)+st.Render("  "+note))}
	}
	return m.text(name, value+"  "+note)
}

// request shows a reconcile.fluxcd.io annotation as requested -> handled.
func (m *Model) request(requested, handled string) string {
	switch {
	case requested == "":
		return m.theme.Dim.Render("none requested")
	case requested == handled:
		return "requested " + v(requested) + " -> " + m.theme.Good.Render("handled")
	}
	return "requested " + v(requested) + " -> " + m.theme.Warn.Render("not handled yet") + m.theme.Dim.Render(" (last handled "+v(orDash(handled))+")")
}

// helmFacts is what only a HelmRelease has: the release, its remediation
// and its history.
func (m *Model) helmFacts(h *model.HelmFacts, now time.Time) []string {
	out := []string{"", m.heading("Helm release")}
	out = append(out, m.field("  release", v(orDash(h.ReleaseName))+m.theme.Dim.Render(" chart ")+v(orDash(h.Chart))))
	out = append(out, m.field("  install", remediation(h.InstallFailures, h.InstallRetries)))
	out = append(out, m.field("  upgrade", remediation(h.UpgradeFailures, h.UpgradeRetries)))
	if h.LastAction != "" {
		out = append(out, m.field("  last action", v(h.LastAction)+fmt.Sprintf(", %d failure(s) since the last success", h.Failures)))
	}
	if h.RetriesExhausted {
		out = append(out, m.theme.Bad.Render("  retries exhausted: helm-controller waits for a spec change, a reset or a force"))
	}
	if h.DriftDetection != "" {
		out = append(out, m.field("  drift mode", v(h.DriftDetection)))
	}
	if h.ForceAt != "" {
		out = append(out, m.field("  force", m.request(h.ForceAt, h.LastHandledForceAt)))
	}
	if h.ResetAt != "" {
		out = append(out, m.field("  reset", m.request(h.ResetAt, h.LastHandledReset)))
	}
	if len(h.History) == 0 {
		return append(out, m.field("  history", m.theme.Dim.Render("no releases recorded")))
	}
	out = append(out, "", m.theme.TableHeader.Render(fmt.Sprintf("  %-8s %-11s %-30s %-12s %s", "RELEASE", "STATUS", "CHART", "APP", "DEPLOYED")))
	for _, r := range h.History {
		deployed := "-"
		if !r.Deployed.IsZero() {
			deployed = model.HumanDuration(now.Sub(r.Deployed)) + " ago"
		}
		line := v(fmt.Sprintf("  v%-7d %-11s %-30s %-12s %s", r.Version, r.Status, r.ChartName+"@"+r.ChartVersion, orDash(r.AppVersion), deployed))
		if r.Status == "failed" {
			line = m.theme.Bad.Render(line)
		}
		out = append(out, line)
	}
	return out
}

func remediation(failures, retries int64) string {
	if retries < 0 {
		return fmt.Sprintf("%d failure(s), retried forever", failures)
	}
	return fmt.Sprintf("%d failure(s) of %d allowed retries", failures, retries)
}

// tofuFacts is what only a Terraform has: the plan and its approval, the
// mode, drift, the state lock and failures.
func (m *Model) tofuFacts(f *model.TofuFacts, now time.Time) []string {
	out := []string{"", m.heading("Terraform plan")}
	mode := "manual approval"
	switch {
	case f.PlanOnly:
		mode = "plan only (spec.planOnly): plans are never applied"
	case f.Force:
		mode = "force: every plan is applied"
	case f.ApprovePlan == "auto":
		mode = "approvePlan: auto"
	case f.ApprovePlan == "disable":
		mode = "drift detection only (approvePlan: disable)"
	case f.ApprovePlan != "":
		mode = "manual approval, approvePlan: " + v(f.ApprovePlan)
	}
	out = append(out, m.field("  mode", mode))
	drift := "on"
	if !f.DriftDetection {
		drift = "off (spec.disableDriftDetection)"
	}
	out = append(out, m.field("  drift check", drift))
	// The pending plan's id is shown whole: approval must name it exactly.
	switch {
	case f.PendingPlan == "":
		out = append(out, m.field("  pending", m.theme.Dim.Render("none")))
	case f.PlanOnly:
		out = append(out, m.fieldNote("  pending", f.PendingPlan, "never applied (plan only)", m.theme.Dim)...)
	case f.ApprovePlan == f.PendingPlan:
		out = append(out, m.fieldNote("  pending", f.PendingPlan, "approved, to be applied", m.theme.Info)...)
	default:
		out = append(out, m.fieldNote("  pending", f.PendingPlan, "waits for approval", m.theme.Info)...)
	}
	if f.PendingPlan != "" && f.PlanStale {
		out = append(out, m.theme.Warn.Render(fmt.Sprintf("  stale: planned at generation %d, the spec is at %d; a new plan comes first", f.LastPlannedGen, m.unit.Generation)))
	}
	if f.DestroyPlan {
		out = append(out, m.theme.Bad.Render("  a destroy plan"))
	}
	if f.DriftPlan {
		out = append(out, m.field("  kind", "drift detection plan"))
	}
	planned := v(orDash(f.LastPlannedRevision))
	if !f.LastPlanAt.IsZero() {
		planned += m.theme.Dim.Render(" " + model.HumanDuration(now.Sub(f.LastPlanAt)) + " ago")
	}
	out = append(out, m.field("  planned", planned))
	out = append(out, m.field("  lastApplied", v(orDash(f.LastAppliedPlan))))
	if f.DriftFound {
		found := m.theme.Warn.Render("drift found")
		if !f.LastDriftAt.IsZero() {
			found += m.theme.Dim.Render(" " + model.HumanDuration(now.Sub(f.LastDriftAt)) + " ago")
		}
		out = append(out, m.field("  drift", found))
	}
	if f.LockPending != "" {
		out = append(out, m.field("  lock", m.theme.Bad.Render("held: "+v(f.LockPending))+m.theme.Dim.Render(" (forceUnlock: "+v(orDash(f.ForceUnlock))+")")))
	}
	if f.ReconciliationFailures > 0 {
		out = append(out, m.field("  failures", fmt.Sprintf("%d of %d retries (spec.remediation.retries)", f.ReconciliationFailures, f.Retries)))
	}
	out = append(out, m.field("  workspace", v(f.Workspace)+m.theme.Dim.Render(" · readable plan: ")+v(orDash(f.StoreReadablePlan))))
	if len(f.Outputs) > 0 || f.OutputsSecret != "" {
		where := " (values not shown: they may be secrets)"
		if f.OutputsSecret != "" {
			where = " (values in Secret " + v(m.unit.Key.Namespace+"/"+f.OutputsSecret) + ", not shown)"
		}
		out = append(out, m.field("  outputs", v(orDash(strings.Join(f.Outputs, ", ")))+m.theme.Dim.Render(where)))
	}
	return out
}

func condition(cs []model.Condition, typ string) *model.Condition {
	for i := range cs {
		if cs[i].Type == typ {
			return &cs[i]
		}
	}
	return nil
}
