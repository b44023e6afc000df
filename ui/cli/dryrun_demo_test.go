package cli

import (
	"strings"
	"testing"
)

// A dry run writes nothing, so it asks nothing, as kubectl's: a script can
// see what a destructive command would write without --yes.
func TestADryRunNeedsNoConfirmation(t *testing.T) {
	isolate(t)
	const app = "argocd/argocd/checkout-web"
	code, out, stderr := run(t, "--demo", "pause", app, "--reason", "INC-9", "--dry-run")
	if code != 0 || !strings.Contains(stderr, "Would write (dry run, nothing persisted)") || !strings.Contains(stderr, "paused-reason: INC-9") {
		t.Fatalf("pause --dry-run without --yes: exit %d, want 0 with the write it would make\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, "--demo", "status", app, "-o", "json"); code != 0 || strings.Contains(out, `"pause":`) || !strings.Contains(out, `"automation": "self-heal"`) {
		t.Errorf("the dry run paused the unit: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, "--demo", "unlock", "pulumi/infra/network-prod", "--reason", "look", "--dry-run"); code != 0 || !strings.Contains(out+stderr, "held by pid 48213") {
		t.Errorf("unlock --dry-run without --yes: exit %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, "--demo", "unlock", "pulumi/infra/network-prod", "--reason", "look", "--dry-run"); code != 0 {
		t.Errorf("the dry-run unlock broke the lock: a second one finds none: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr := run(t, "--demo", "pause", app, "--reason", "INC-9"); code != 2 || !strings.Contains(stderr, "pass --yes") {
		t.Errorf("pause without --yes or a terminal: exit %d, want 2\n%s", code, stderr)
	}
}
