package cli

import (
	"strings"
	"testing"
)

// Each --demo command starts where the one before it left, so a runbook's
// pause and resume can be walked through; reset starts the demo afresh.
func TestTheDemoKeepsItsStateBetweenCommandsUntilReset(t *testing.T) {
	isolate(t)
	const app = "argocd/argocd/checkout-web"
	if code, out, stderr := run(t, "--demo", "pause", app, "--reason", "INC-9", "--yes"); code != 0 {
		t.Fatalf("pause: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, "--demo", "status", app); code != 0 || !strings.Contains(out, "paused") {
		t.Errorf("the next command does not see the pause: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, "--demo", "resume", app, "--reason", "INC-9 over", "--yes"); code != 0 || !strings.Contains(out+stderr, "restore the automation paused by") {
		t.Errorf("resume of the kept pause: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, "--demo", "pause", app, "--reason", "INC-10", "--yes"); code != 0 {
		t.Fatalf("pause again: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, _ := run(t, "--demo", "reset"); code != 0 || !strings.Contains(out, "the demo is reset") {
		t.Errorf("reset: exit %d\n%s", code, out)
	}
	if code, out, _ := run(t, "--demo", "reset"); code != 0 || !strings.Contains(out, "unchanged: the demo kept no state") {
		t.Errorf("a second reset: exit %d\n%s", code, out)
	}
	if code, out, stderr := run(t, "--demo", "status", app); code != 0 || strings.Contains(out, "paused") {
		t.Errorf("after reset the demo still holds the pause: exit %d\n%s%s", code, out, stderr)
	}
}

// The demo's Pulumi state backend is kept too: a lock broken by one command
// is not held again by the next.
func TestTheDemoKeepsABrokenLockBroken(t *testing.T) {
	isolate(t)
	const stack = "pulumi/infra/network-prod"
	if code, out, stderr := run(t, "--demo", "unlock", stack, "--reason", "CI runner died", "--yes"); code != 0 {
		t.Fatalf("unlock: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, "--demo", "unlock", stack, "--reason", "again", "--yes"); code != 6 || !strings.Contains(stderr, "no lock held") {
		t.Errorf("the next command finds the lock again: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, _ := run(t, "--demo", "reset"); code != 0 {
		t.Fatalf("reset: exit %d\n%s", code, out)
	}
	if code, out, stderr := run(t, "--demo", "unlock", stack, "--reason", "look", "--dry-run"); code != 0 || !strings.Contains(out, "held by pid 48213") {
		t.Errorf("after reset the lock of the estate is not back: exit %d\n%s%s", code, out, stderr)
	}
}
