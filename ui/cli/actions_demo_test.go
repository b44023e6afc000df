package cli

import (
	"strings"
	"testing"
)

func TestRefreshNeedsNeitherYesNorATerminal(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "refresh", "argocd/argocd/guestbook")
	if code != 0 || !strings.Contains(out, "done: normal refresh of argocd/argocd/guestbook") {
		t.Errorf("exit %d\n%s%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "argocd.argoproj.io/refresh: normal") {
		t.Errorf("the refresh does not print what it wrote:\n%s", stderr)
	}
}

func TestDestructiveActionsWithoutATerminalNeedYes(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{
		{"pause", "argocd/argocd/checkout-web", "--reason", "INC-1"},
		{"freeze", "-n", "team-payments", "--reason", "INC-1"},
		{"unlock", "pulumi/infra/network-prod", "--reason", "runner died"},
	} {
		code, out, stderr := run(t, append([]string{"--demo"}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, "no terminal to confirm on: pass --yes") || out != "" {
			t.Errorf("driftdeck %s without a terminal: exit %d, stdout %q, stderr %q; want exit 2 asking for --yes and nothing done",
				strings.Join(args, " "), code, out, stderr)
		}
	}
}

func TestBulkActionsReportEachUnit(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "freeze", "-l", "team=payments", "--reason", "INC-1", "--until", "2h", "--yes")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{
		"applied  demo:argocd/team-payments/payments-api",
		"skipped  demo:argocd/team-payments/payouts: argocd/team-payments/payouts has a manual sync policy",
		"0 failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("freeze output lacks %q:\n%s", want, out)
		}
	}
	code, out, stderr = run(t, "--demo", "refresh", "pulumi/infra/network-prod", "argocd/argocd/guestbook")
	if code != 0 || !strings.Contains(out, "skipped  demo:pulumi/infra/network-prod: refresh is not possible for pulumi units") ||
		!strings.Contains(out, "applied  demo:argocd/argocd/guestbook") {
		t.Errorf("a refresh of a Stack and an app: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, "--demo", "pause", "argocd/argocd/checkout-web", "argocd/argocd/nothing-here", "--reason", "INC-1", "--yes")
	if code != exitFailed || !strings.Contains(out, "failed   demo:argocd/argocd/nothing-here") || !strings.Contains(out, "applied  demo:argocd/argocd/checkout-web") {
		t.Errorf("a bulk pause with a unit that does not exist: exit %d, want 1\n%s%s", code, out, stderr)
	}
	code, _, stderr = run(t, "--demo", "refresh", "-l", "team=nobody")
	if code != exitNotFound || !strings.Contains(stderr, "no unit matches") {
		t.Errorf("a selection of nothing: exit %d, want 5: %s", code, stderr)
	}
}

// A freeze prints each unit's write before it is made, as a single pause
// does: every annotation, the expiry's paused-until included, and the
// ApplicationSet entries once, as the one patch writes them.
func TestFreezePrintsEachUnitsWriteWithItsExpiry(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "--dry-run", "freeze", "argocd/argocd/cart", "argocd/argocd/search-api", "--reason", "INC-1", "--until", "2h", "--yes")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, unit := range []string{"cart", "search-api"} {
		if !strings.Contains(stderr, "pause auto-sync and self-heal of argocd/argocd/"+unit) {
			t.Errorf("the freeze does not show the write to %s:\n%s", unit, stderr)
		}
	}
	for _, ann := range []string{"paused-by", "paused-reason: INC-1", "paused-at", "paused-until", "paused-previous"} {
		if n := strings.Count(stderr, "metadata.annotations.driftdeck.io/"+ann); n != 2 {
			t.Errorf("the freeze lists %s %d times, want once per unit:\n%s", ann, n, stderr)
		}
	}
	if strings.Count(stderr, "Also adds to applicationset/argocd/storefront-services spec.ignoreApplicationDifferences, in one patch, before any child is paused:") != 1 ||
		strings.Count(stderr, `  + {"jsonPointers":`) != 2 {
		t.Errorf("the freeze does not show the ApplicationSet's two entries once:\n%s", stderr)
	}
}

func TestDiffExits1OnDifferencesAnd0Without(t *testing.T) {
	isolate(t)
	if code, out, stderr := run(t, "--demo", "diff", "argocd/argocd/kafka"); code != 1 || !strings.Contains(out, "@@") || strings.Contains(stderr, "error") {
		t.Errorf("a drifted app: exit %d, want 1 with the diff\n%s%s", code, out, stderr)
	}
	if code, _, stderr := run(t, "--demo", "diff", "argocd/argocd/guestbook"); code != 0 {
		t.Errorf("an app in sync: exit %d, want 0: %s", code, stderr)
	}
}

// A pause of an Application the demo's ApplicationSet owns lists both
// writes, each under its object, and holds against the demo's ApplicationSet
// controller.
func TestPauseOfAnApplicationSetChildListsBothWrites(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "pause", "argocd/argocd/cart", "--reason", "INC-1", "--dry-run", "--yes")
	text := out + stderr
	for _, want := range []string{
		"spec.syncPolicy.automated.enabled: (unset, means true) → false",
		"and to applicationset/argocd/storefront-services, before the unit's own patch",
		`spec.ignoreApplicationDifferences: + {"jsonPointers":["/spec/syncPolicy/automated/enabled","/metadata/annotations/driftdeck.io~1paused-at"`,
		`"name":"cart"}`,
		"metadata.annotations.driftdeck.io/paused-owner-hold: ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the dry run does not show %q (exit %d):\n%s", want, code, text)
		}
	}
	code, out, stderr = run(t, "--demo", "pause", "argocd/argocd/cart", "--reason", "INC-1", "--yes")
	if code != 0 || !strings.Contains(out, "done: pause auto-sync and self-heal of argocd/argocd/cart") || strings.Contains(out+stderr, "reverted") {
		t.Errorf("the pause must hold against the ApplicationSet controller: exit %d\n%s%s", code, out, stderr)
	}
}

// A resume by name ends what somebody else switched off: a flux suspend,
// as flux resume does, naming whose; an Application's auto-sync, with the
// policy the user chose, and never a guessed one.
func TestResumeEndsWhatWasSwitchedOffOutsideDriftdeck(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "resume", "kustomization/flux-system/monitoring-crds", "--reason", "INC-7 over", "--yes")
	if code != 0 || !strings.Contains(stderr, "end a suspend driftdeck did not set (spec.suspend written by flux-client-side-apply at ") || !strings.Contains(stderr, "spec.suspend: true → false") {
		t.Errorf("resume of a flux suspend: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, "--demo", "resume", "argocd/team-payments/payouts", "--reason", "INC-7 over", "--yes")
	if code != exitRefused || !strings.Contains(stderr, "--auto-sync") {
		t.Errorf("resume of a manual Application without a chosen policy: exit %d, want 6 naming --auto-sync\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, "--demo", "resume", "argocd/team-payments/payouts", "--auto-sync", "--self-heal", "--reason", "INC-7 over", "--yes")
	if code != 0 || !strings.Contains(stderr, `spec.syncPolicy.automated: null → {"prune":false,"selfHeal":true}`) {
		t.Errorf("resume --auto-sync --self-heal: exit %d\n%s%s", code, out, stderr)
	}
	code, _, stderr = run(t, "--demo", "resume", "argocd/team-payments/payouts", "--prune", "--reason", "x", "--yes")
	if code != exitUsage || !strings.Contains(stderr, "add --auto-sync") {
		t.Errorf("--prune without --auto-sync: exit %d, want 2\n%s", code, stderr)
	}
}
