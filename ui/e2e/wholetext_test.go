package e2e

import (
	"strings"
	"testing"
)

// lockRule is the rule, with its remedy, that makes the demo's
// pulumi/infra/network-prod stuck: its updates fail on a lock a dead run left.
const lockRule = "the last update failed because another update holds the stack's lock: retries fail until it is released; if its run is dead, break the lock, then retry"

// words is text as one run of words: wrapped text reads as the original
// once line breaks and indents are gone.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// below is the screen's text under the first line that holds marker.
func below(screen, marker string) string {
	_, rest, _ := strings.Cut(screen, marker)
	return rest
}

func TestDemoStuckRuleAndRemedyReadWholeAt80Columns(t *testing.T) {
	term := start(t, 80, 30, nil, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	term.send(`/network-prod` + "\r")
	term.waitUntil(promptly, "the filter to leave only network-prod under the cursor", func(s string) bool {
		return strings.Contains(s, ">  pulumi  infra/network-prod") && strings.Count(s, "pulumi  infra/") == 1
	})
	// The list's status lines, under the rule that ends the table.
	s := term.waitUntil(promptly, "the list's status lines to hold the stuck rule and its remedy whole", func(s string) bool {
		return strings.Contains(words(below(s, "────")), "stuck "+lockRule)
	})
	if !strings.Contains(words(below(s, "────")), "why update failed on a state lock") {
		t.Errorf("the status lines lack the reason:\n%s", s)
	}

	term.send("\r")
	term.waitUntil(promptly, "the detail's overview to hold the stuck rule and its remedy whole", func(s string) bool {
		return strings.Contains(s, "[Overview]") && strings.Contains(words(s), "rule "+lockRule)
	})
	term.send("\x1b")
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
