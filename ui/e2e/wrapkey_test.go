package e2e

import (
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
)

// squashed is text without its white space: wrapped text matches the
// original wherever its lines broke.
func squashed(s string) string { return strings.Join(strings.Fields(s), "") }

// helmUpgradeFailed is the demo's Event on monitoring/kube-prometheus-stack:
// behind the age, type, reason and source columns it runs past 120 columns.
const helmUpgradeFailed = "Helm upgrade failed for release monitoring/kube-prometheus-stack with chart kube-prometheus-stack@65.1.0: spec.selector: Invalid value: field is immutable"

func TestDemoEventMessageReadWholeWithTheWrapKeyAt120Columns(t *testing.T) {
	term := start(t, 120, 40, nil, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	term.send("/kube-prometheus-stack\r")
	term.waitUntil(promptly, "the filter to leave the HelmRelease under the cursor", func(s string) bool {
		// The list may cut the name itself: its start is enough to know the row.
		return strings.Contains(s, ">  flux hr monitoring/kube-prometheus-s") && strings.Count(s, "flux hr ") == 1
	})
	term.send("\r")
	term.waitFor(promptly, "[Overview]")
	term.send("\t")
	s := term.waitUntil(promptly, "the Events tab to show the cut message and name the wrap key", func(s string) bool {
		return strings.Contains(s, "[Events]") && strings.Contains(s, "UpgradeFailed") && strings.Contains(s, "e whole lines")
	})
	if strings.Contains(squashed(s), squashed(helmUpgradeFailed)) {
		t.Fatalf("the message already fits: the test proves nothing\n%s", s)
	}
	term.send("e")
	term.waitUntil(promptly, "the message whole after e", func(s string) bool {
		return strings.Contains(squashed(s), squashed(helmUpgradeFailed)) && strings.Contains(s, "e cut long lines")
	})
	term.send("q")
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// The demo's analytics-preview Stack previews for real: of its events
// bucket's input, the one key that changes is listed with both values.
func TestDemoPreviewShowsTheChangedValueAt80Columns(t *testing.T) {
	pulumiruntest.CLI(t)
	pulumiruntest.ReleaseHelper(t)
	term := start(t, 80, 24, nil, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	term.send("/analytics-preview\r")
	term.waitUntil(promptly, "the filter to leave the Stack under the cursor", func(s string) bool {
		return strings.Contains(s, "infra/analytics-preview") && strings.Count(s, "pulumi  infra/") == 1
	})
	term.send("d")
	term.waitUntil(startup, "the preview to show events-bucket's changed key", func(s string) bool {
		return strings.Contains(s, "events-bucket") && strings.Contains(s, "input.retentionDays: 14 => 30")
	})
	term.send("\x1b")
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
