package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
)

// Each Flux and Terraform action has its own key: it opens the action's
// confirmation on a unit that can do it, and says why not on one that
// cannot, before any form.
func TestFluxAndTerraformKeysStartTheirActions(t *testing.T) {
	for _, c := range []struct {
		unit, key string
		kind      actions.Kind
		whyNot    string // "" when the confirmation opens
	}{
		{"kube-prometheus-stack", "f", actions.Force, ""},
		{"kube-prometheus-stack", "X", actions.Reset, ""},
		{"eks-cluster", "P", actions.Replan, ""},
		{"rds-postgres", "K", actions.ForceUnlock, ""},
		{"eks-cluster", "K", actions.ForceUnlock, "force-unlock terraform/flux-system/eks-cluster: no state lock is held"},
		{"rds-postgres", "P", actions.Replan, "replan terraform/flux-system/rds-postgres: no plan is pending"},
		{"iam-roles", "f", actions.Force, "force is not an action of terraform units"},
	} {
		a, be := newFluxTestAppWith(t, 120, 40)
		selectUnit(t, a, c.unit)
		press(a, c.key)
		d, isDialog := a.top().(*dialog)
		if c.whyNot != "" {
			if isDialog || !strings.Contains(flat(a), c.whyNot) {
				t.Errorf("%s on %s: want the refusal %q at once:\n%s", c.key, c.unit, c.whyNot, plain(a))
			}
			continue
		}
		if !isDialog || d.kind != dlgConfirm || d.action != c.kind {
			t.Errorf("%s on %s must open the %s confirmation:\n%s", c.key, c.unit, c.kind, plain(a))
			continue
		}
		typeText(a, "INC-9")
		press(a, "enter", "y")
		if len(be.executed) != 1 || be.executed[0].Kind != c.kind || be.executed[0].Key.Name != c.unit {
			t.Errorf("%s on %s executed %+v, want one %s", c.key, c.unit, be.executed, c.kind)
		}
	}
}

// The footer offers the keys of what the cursor row can do now; the
// actions menu lists every action of the engine with its key, and why not.
func TestFluxAndTerraformActionsInFooterAndMenu(t *testing.T) {
	a, _ := newFluxTestAppWith(t, 140, 40)
	// Moving the cursor asks what the row can do, as j and k do.
	askAvailability(t, a, "rds-postgres")
	footer := lastLine(plain(a))
	if !strings.Contains(footer, "r refresh  p pause  K force unlock") {
		t.Errorf("a Terraform with a held lock must offer refresh, force-unlock and pause in the footer: %q", footer)
	}
	askAvailability(t, a, "kube-prometheus-stack")
	if footer := lastLine(plain(a)); !strings.Contains(footer, "r refresh  f force  X reset  p pause") {
		t.Errorf("a HelmRelease with failures must offer refresh, force, reset and pause: %q", footer)
	}
	selectUnit(t, a, "eks-cluster")
	press(a, "a")
	menu := flat(a)
	for _, want := range []string{"approve (A)", "refresh (r)", "replan (P)", "pause (p)", "resume (u) — not paused by driftdeck", "force-unlock (K) — no state lock is held"} {
		if !strings.Contains(menu, want) {
			t.Errorf("the actions menu of a pending Terraform lacks %q:\n%s", want, plain(a))
		}
	}
	if strings.Contains(menu, "manual sync policy") {
		t.Errorf("a Terraform is paused by suspending it, whatever its approval mode:\n%s", plain(a))
	}
}

// askAvailability moves the cursor to the unit and waits for what it can
// do, as moving there with j and k asks.
func askAvailability(t *testing.T, a *App, name string) {
	t.Helper()
	if cmd := a.prefetch(selectUnit(t, a, name)); cmd != nil {
		a.Update(cmd())
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// suspendedKustomization is a suspended Kustomization, with the
// annotations driftdeck's pause writes when paused is set.
func suspendedKustomization(t *testing.T, name string, paused bool) *model.Unit {
	t.Helper()
	ann := map[string]string{}
	if paused {
		ann = map[string]string{
			"driftdeck.io/paused-by": "oncall@example.com", "driftdeck.io/paused-reason": "INC-4411 bad image in prod",
			"driftdeck.io/paused-at": fixedNow.Add(-20 * time.Minute).UTC().Format(time.RFC3339), "driftdeck.io/paused-until": fixedNow.Add(2 * time.Hour).UTC().Format(time.RFC3339),
			"driftdeck.io/paused-mode": "suspend", "driftdeck.io/paused-previous": "null",
		}
	}
	obj := map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"namespace": "team-web", "name": name, "generation": json.Number("2"), "annotations": ann},
		"spec":     map[string]any{"interval": "10m", "suspend": true, "sourceRef": map[string]any{"kind": "GitRepository", "name": "web"}},
		"status":   map[string]any{"observedGeneration": json.Number("2")},
	}
	raw, _ := json.Marshal(obj)
	var o map[string]any
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	u := flux.ConvertKustomization("prod-eu-1", o)
	if len(u.ReadErrors) > 0 {
		t.Fatalf("fixture: %v", u.ReadErrors)
	}
	model.Derive(u, fixedNow, model.DefaultThresholds)
	return u
}

// A Flux unit driftdeck paused reads "paused", with who, why and until,
// and resume is offered; one somebody else suspended reads "suspended",
// and resume opens its confirm too, as flux resume would end it.
func TestDriftdeckPauseAndForeignSuspendReadApart(t *testing.T) {
	a, _ := newFluxTestAppWith(t, 140, 50,
		suspendedKustomization(t, "web-paused", true), suspendedKustomization(t, "web-suspended", false))
	press(a, ":")
	typeText(a, "ks")
	press(a, "enter")
	rows := map[string]string{}
	for _, l := range strings.Split(plain(a), "\n") {
		for _, n := range []string{"web-paused", "web-suspended"} {
			if strings.Contains(l, "team-web/"+n) {
				rows[n] = l
			}
		}
	}
	if r := rows["web-paused"]; !strings.Contains(r, "paused") || strings.Contains(r, "reverted") {
		t.Errorf("the unit driftdeck paused must read paused: %q", r)
	}
	if r := rows["web-suspended"]; !strings.Contains(r, "suspended") || strings.Contains(r, "paused") {
		t.Errorf("the unit somebody else suspended must read suspended: %q", r)
	}

	askAvailability(t, a, "web-paused")
	if footer := lastLine(plain(a)); !strings.Contains(footer, "u resume") {
		t.Errorf("resume must be offered for a driftdeck pause: %q", footer)
	}
	press(a, "enter")
	detail := flat(a)
	for _, want := range []string{"Automation paused (suspend: true (paused by driftdeck))", "Paused by driftdeck", "by oncall@example.com", "why INC-4411 bad image in prod", "(in 120m)"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the detail of a driftdeck pause lacks %q:\n%s", want, plain(a))
		}
	}
	if strings.Contains(detail, "no longer in force") {
		t.Errorf("a pause still in force is called reverted:\n%s", plain(a))
	}

	press(a, "esc")
	selectUnit(t, a, "web-suspended")
	press(a, "u")
	d, ok := a.top().(*dialog)
	if !ok || d.req.Kind != actions.Resume || !d.req.Single {
		t.Errorf("resume of a foreign suspend must open its confirm, for this unit alone:\n%s", plain(a))
	}
}

// Reconcile with source is in the actions menu of a Flux or Terraform unit
// whose source is known, with its key; W does it from the list too. It is
// confirmed with the plan, which lists the source's request before the
// unit's, and the write is the CLI's refresh --with-source request.
func TestReconcileWithSourceFromMenuAndKey(t *testing.T) {
	const source = "GitRepository/team-web/web: metadata.annotations.reconcile.fluxcd.io/requestedAt: (unset) → T1"
	for _, viaMenu := range []bool{true, false} {
		a, be := newFluxTestAppWith(t, 140, 40)
		be.sourceFirst = source
		askAvailability(t, a, "web-frontend")
		if viaMenu {
			press(a, "a")
			if menu := flat(a); !strings.Contains(menu, "reconcile with source (W): GitRepository/team-web/web first, then the unit") {
				t.Fatalf("the actions menu of a Kustomization must offer reconcile with source, naming it:\n%s", plain(a))
			}
			// Down from refresh (r) to the entry below it, then enter.
			for i := 0; i < 10 && !strings.Contains(flat(a), "> reconcile with source"); i++ {
				press(a, "down")
			}
			press(a, "enter")
		} else {
			press(a, "W")
		}
		d, ok := a.top().(*dialog)
		if !ok || d.kind != dlgConfirm || !d.req.WithSource || d.req.Kind != actions.Refresh {
			t.Fatalf("reconcile with source (menu %v) must open a confirmation of refresh with source:\n%s", viaMenu, plain(a))
		}
		screen := plain(a)
		first, own := strings.Index(screen, "GitRepository/team-web/web: metadata.annotations"), strings.Index(screen, "kustomization/team-web/web-frontend: metadata.annotations.reconcile.fluxcd.io/requestedAt")
		if first < 0 || own < 0 || first > own {
			t.Fatalf("the confirmation must list the source's request first, then the unit's, named:\n%s", screen)
		}
		if len(be.executed) != 0 {
			t.Fatalf("written before the confirmation: %+v", be.executed)
		}
		typeText(a, "source has the fix")
		press(a, "enter", "y")
		if len(be.executed) != 1 || !be.executed[0].WithSource || be.executed[0].Key.Name != "web-frontend" || be.executed[0].Reason != "source has the fix" {
			t.Errorf("executed %+v, want one refresh with source of web-frontend", be.executed)
		}
	}
}

// A unit without a source (an Argo CD app) is not offered it, and W says why.
func TestReconcileWithSourceNeedsASource(t *testing.T) {
	a, be := newFluxTestAppWith(t, 140, 40)
	selectUnit(t, a, "checkout")
	press(a, "W")
	if _, isDialog := a.top().(*dialog); isDialog || !strings.Contains(flat(a), "only Flux and Terraform units read a source") {
		t.Errorf("W on an Argo CD app must say at once why not:\n%s", plain(a))
	}
	askAvailability(t, a, "checkout")
	press(a, "a")
	if strings.Contains(flat(a), "reconcile with source (") {
		t.Errorf("an Argo CD app's menu offers reconcile with source:\n%s", plain(a))
	}
	if len(be.executed) != 0 {
		t.Errorf("executed %+v", be.executed)
	}
}

// d on a Kustomization asks the backend for that Kustomization's diff and
// shows it on the diff screen, as for an Argo CD app: the revision built,
// where from, and each changed object.
func TestKustomizationDiffKey(t *testing.T) {
	a, be := newFluxTestAppWith(t, 140, 40)
	cm := func(level string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": "team-web", "name": "web-settings"}, "data": map[string]any{"level": level}}
	}
	report, err := diff.Objects([]diff.Pair{{Live: cm("warn"), Desired: cm("debug")}}, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	be.diff = &argodiff.Result{Report: report, Revision: "42d7b0f", SyncRevision: "main@sha1:42d7b0f", Source: "local build of GitRepository/team-web/web"}
	u := selectUnit(t, a, "web-frontend")
	press(a, "d")
	if !topIs[*diffScreen](a) {
		t.Fatalf("d on a Kustomization must open its diff:\n%s", plain(a))
	}
	screen := plain(a)
	for _, want := range []string{"web-settings", "warn", "debug", "42d7b0f"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the Kustomization's diff screen lacks %q:\n%s", want, screen)
		}
	}
	if len(be.diffKeys) == 0 || be.diffKeys[0] != u.Key {
		t.Errorf("diff asked for %v, want %v", be.diffKeys, u.Key)
	}
}
