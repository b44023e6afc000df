package cli

import (
	"strings"
	"testing"
)

// The demo's paused kyverno was scaled to zero by hand during its incident:
// before a resume is confirmed, the dialog says self-heal will scale it back.
func TestTheResumeDialogSaysWhatSelfHealWillRevert(t *testing.T) {
	isolate(t)
	w := startWorkbench(t, demoGlobals())
	w.waitFor("the list", listShown)
	w.keys("/", "kyverno", "enter")
	w.waitFor("the filtered list", listShown, "/kyverno")
	w.keys("u")
	w.waitFor("the resume's forecast", "Once resumed:", "self-heal is back", "apps/Deployment/kyverno/kyverno: reverted", "spec.replicas: 0 → 3")
}

// A bulk resume names one line per unit; on its buttons, d opens every
// unit's forecast whole, and any key goes back to the dialog.
func TestABulkResumeOpensEveryUnitsForecast(t *testing.T) {
	isolate(t)
	w := startWorkbench(t, demoGlobals())
	w.waitFor("the list", listShown)
	w.keys("/", "^(argocd/argocd/kyverno|helmrelease/monitoring/grafana)$", "enter")
	w.waitFor("the two paused units", "argocd/kyverno", "monitoring/grafana")
	w.keys(" ", " ", "u")
	w.waitFor("the bulk resume's summaries", "resume 2 units", "once resumed: 1 object will change: 1 reverted")
	w.keys("INC-4412 over", "tab", "tab")
	w.waitFor("the buttons", "d: what each unit's controller will change")
	w.keys("d")
	w.waitFor("every unit's forecast whole", "What the controllers of the 2 units will change once resumed",
		"• argocd/argocd/kyverno:", "spec.replicas: 0 → 3", "• helmrelease/monitoring/grafana:")
	w.keys("esc")
	w.waitFor("the bulk dialog again", "resume 2 units", "d: what each unit's controller will change")
}

// A resume's dry run prints the same forecast under its plan, and a thaw
// one line per unit with the command that shows the whole diff.
func TestResumeAndThawDryRunsSayWhatTheControllersWillChange(t *testing.T) {
	isolate(t)
	code, _, stderr := run(t, "--demo", "resume", "argocd/argocd/kyverno", "--dry-run", "--reason", "INC-4412 over")
	if code != 0 || !strings.Contains(stderr, "Once resumed:\n  self-heal is back") || !strings.Contains(stderr, "\n    spec.replicas: 0 → 3\n") {
		t.Fatalf("resume --dry-run exited %d:\n%s", code, stderr)
	}
	code, _, stderr = run(t, "--demo", "thaw", "--all", "--dry-run", "--reason", "INC-4412 over")
	for _, want := range []string{
		"  demo:argocd/argocd/kyverno: 1 object will change: 1 reverted\n    see: driftdeck --demo diff argocd/argocd/kyverno\n",
		"  demo:helmrelease/monitoring/grafana: cannot tell what the controller will change: helmrelease/monitoring/grafana reads HelmRepository/flux-system/grafana: the demo holds no copy of https://grafana.github.io/helm-charts and never reaches the network",
	} {
		if code != 0 || !strings.Contains(stderr, want) {
			t.Fatalf("thaw --dry-run exited %d, without %q:\n%s", code, want, stderr)
		}
	}
}
