package cli

import (
	"strings"
	"testing"

	"github.com/clipperhouse/displaywidth"
)

// The demo's failing app has a reason of about 230 characters.
const demoFailingReason = `spec.template.spec.containers[0].resources.requests: Invalid value: "4": must be less than or equal to cpu limit of 2`

func TestStatusPrintsWholeReasonsWhenPiped(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "status", "-n", "team-payments")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	line := lineOf(out, "payments-api")
	if !strings.Contains(line, demoFailingReason) || strings.Contains(line, "…") {
		t.Errorf("piped, the reason is not whole:\n%s", line)
	}
}

func TestStatusCutsReasonsOnATerminalUnlessWide(t *testing.T) {
	isolate(t)
	code, screen, stderr := runOnTerminal(t, 120, "--demo", "status", "-n", "team-payments")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if line := lineOf(screen, "payments-api"); strings.Contains(line, demoFailingReason) || !strings.HasSuffix(strings.TrimSpace(line), "…") {
		t.Errorf("on a terminal the table should cut the reason with …:\n%s", line)
	}
	code, screen, stderr = runOnTerminal(t, 120, "--demo", "status", "-n", "team-payments", "-o", "wide")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(lineOf(screen, "UNIT"), "RULE") {
		t.Errorf("-o wide has no RULE column:\n%s", screen)
	}
	if line := lineOf(screen, "payments-api"); !strings.Contains(line, demoFailingReason) {
		t.Errorf("-o wide on a terminal should print the reason whole:\n%s", line)
	}
}

func lineOf(text, substr string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, substr) {
			return l
		}
	}
	return ""
}

// On a terminal every row fits its width: the reason gives way first, and
// from 120 columns on every unit's name stays whole.
func TestStatusRowsFitTheTerminal(t *testing.T) {
	isolate(t)
	for _, cols := range []int{80, 120, 200} {
		code, screen, stderr := runOnTerminal(t, cols, "--demo", "status")
		if code != 0 {
			t.Fatalf("%d columns: exit %d: %s", cols, code, stderr)
		}
		for _, line := range strings.Split(strings.TrimRight(screen, "\n"), "\n") {
			if w := displaywidth.String(line); w > cols {
				t.Errorf("at %d columns a row is %d wide and wraps:\n%s", cols, w, line)
			}
		}
		if !strings.Contains(lineOf(screen, "UNIT"), "REASON") {
			t.Errorf("at %d columns the header lost a column:\n%s", cols, screen)
		}
		if cols < 120 {
			continue
		}
		line := lineOf(screen, "argocd/team-payments/payments-api ")
		if !strings.HasSuffix(strings.TrimSpace(line), "…") {
			t.Errorf("at %d columns the reason should be cut with … and the name whole:\n%s", cols, line)
		}
	}
}
