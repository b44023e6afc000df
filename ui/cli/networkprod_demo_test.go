package cli

import (
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
)

// network-prod's preview runs the program the demo ships with the real
// pulumi CLI, off the network, against the state the killed run left: the
// gateway it was creating and the flow logs' new retention. Its apply fails
// on the dead run's lock until the lock is broken, then applies that plan.
func TestDemoNetworkProdPreviewsOfflineAndAppliesOnceUnlocked(t *testing.T) {
	pulumiruntest.CLI(t)
	pulumiruntest.ReleaseHelper(t)
	isolate(t)
	const stack = "pulumi/infra/network-prod"

	code, out, stderr := run(t, "--demo", "preview", stack)
	if code != 0 {
		t.Fatalf("preview: exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"create   pulumi:index:Stash               egress-b", "input.retentionDays: 7 => 30", "1 to create, 1 to update"} {
		if !strings.Contains(out, want) {
			t.Errorf("the preview does not show %q:\n%s", want, out)
		}
	}
	code, out, stderr = run(t, "--demo", "preview", stack, "--approve", "--reason", "CHG-8", "--yes")
	if code == 0 || !strings.Contains(stderr, "the stack is currently locked") {
		t.Errorf("apply under the dead run's lock: exit %d, want it refused by the lock\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, "--demo", "unlock", stack, "--reason", "CI runner died", "--yes"); code != 0 {
		t.Fatalf("unlock: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, "--demo", "preview", stack, "--approve", "--reason", "CHG-8", "--yes")
	if code != 0 || !strings.Contains(out+stderr, "applied the reviewed plan") {
		t.Fatalf("apply once unlocked: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, "--demo", "preview", stack)
	if code != 0 || strings.Contains(out, "create ") || strings.Contains(out, "update ") {
		t.Errorf("after the apply the preview still has work: exit %d\n%s%s", code, out, stderr)
	}
}

// A resume of a Stack whose program runs here says what the operator will
// change from the Stack's real preview: network-prod's gateway a killed run
// left pending and its flow logs' retention.
func TestDemoResumeOfAStackForecastsByItsPreview(t *testing.T) {
	pulumiruntest.CLI(t)
	pulumiruntest.ReleaseHelper(t)
	isolate(t)
	const stack = "pulumi/infra/network-prod"
	if code, out, stderr := run(t, "--demo", "pause", stack, "--reason", "INC-9", "--yes"); code != 0 {
		t.Fatalf("pause: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr := run(t, "--demo", "resume", stack, "--reason", "fixed", "--dry-run")
	if code != 0 {
		t.Fatalf("resume --dry-run: exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"preview of stack organization/network/prod on this machine", "pulumi:index:Stash egress-b: create",
		"pulumi:index:Stash flow-logs: update", "input.retentionDays: 7 → 30"} {
		if !strings.Contains(out+stderr, want) {
			t.Errorf("the resume's forecast does not show %q:\n%s%s", want, out, stderr)
		}
	}
}
