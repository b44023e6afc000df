package e2e

import (
	"strings"
	"testing"
)

// noForm fails when the screen shows a form to fill in or a button to
// confirm: a key for an impossible action must open neither.
func noForm(t *testing.T, screen string) {
	t.Helper()
	for _, form := range []string{"Reason:", "[ Yes ]", " Yes ", "Until:"} {
		if strings.Contains(screen, form) {
			t.Errorf("the screen shows %q: an impossible action opened a form:\n%s", form, screen)
		}
	}
}

// kafka is the demo's Argo CD app with a manual sync policy: there is no
// auto-sync to pause.
func TestDemoPauseOnAManualAppSaysWhyNotAndOpensNoForm(t *testing.T) {
	term := start(t, 120, 32, nil, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	term.send(`/argocd/kafka\b` + "\r")
	term.waitUntil(promptly, "the filter to leave argocd/kafka under the cursor", func(s string) bool {
		return strings.Contains(s, ">  argocd  argocd/kafka ") && strings.Count(s, "argocd ") == 1
	})
	term.send("p")
	s := term.waitFor(promptly, "nothing to pause")
	noForm(t, s)
	// The list is still usable: the key left nothing open that waits for input.
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d; screen:\n%s", code, term.screen())
	}
}

// In --read-only every write says so before anything is typed: cart's
// pause would be possible otherwise.
func TestDemoReadOnlySaysSoBeforeAnyForm(t *testing.T) {
	term := start(t, 120, 32, nil, "--demo", "--read-only")
	term.waitFor(startup, "DEMO", "READ-ONLY", "NAMESPACE/NAME")
	term.send(`/argocd/cart\b` + "\r")
	term.waitUntil(promptly, "the filter to leave argocd/cart under the cursor", func(s string) bool {
		return strings.Contains(s, ">  argocd  argocd/cart ") && strings.Count(s, "argocd ") == 1
	})
	term.send("p")
	s := term.waitUntil(promptly, "the screen to say the pause is refused read-only", func(s string) bool {
		body := strings.ReplaceAll(s, "READ-ONLY", "") // the header's badge says it all the time
		return strings.Contains(body, "read-only")
	})
	noForm(t, s)
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d; screen:\n%s", code, term.screen())
	}
}
