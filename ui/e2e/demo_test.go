package e2e

import (
	"strings"
	"testing"
	"time"
)

func TestDemoFilterDetailQuit(t *testing.T) {
	term := start(t, 120, 32, nil, "--demo")
	// A full list within a second of the window showing.
	term.waitFor(5*time.Second, "DEMO", "units", "NAMESPACE/NAME")
	term.waitUntil(time.Second, "the list to fill the screen", func(s string) bool { return strings.Count(s, "argocd ") >= 20 })

	term.send("/")
	term.send("velero")
	term.send("\r")
	// "argocd/velero" is on the unfiltered screen too: wait for the others to go.
	term.waitUntil(2*time.Second, "the filter to leave only argocd/velero", func(s string) bool {
		return strings.Contains(s, "argocd/velero") && strings.Count(s, "argocd ") == 1 && !strings.Contains(s, "pulumi ")
	})

	term.send("\r")
	term.waitFor(2*time.Second, "argocd/argocd/velero", "Overview", "Can do", "Operation")
	term.send("\t\t\t\t") // to the YAML tab
	term.waitFor(2*time.Second, "apiVersion: argoproj.io/v1alpha1", "kind: Application")
	if strings.Contains(term.screen(), "managedFields") {
		t.Error("the YAML shows managedFields")
	}

	term.send("\x1b") // back to the list
	term.waitFor(2*time.Second, "NAMESPACE/NAME")
	term.send("q")
	if code := term.exit(5 * time.Second); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if term.altScreen() {
		t.Fatal("the terminal is left on the alternate screen")
	}
}

func TestDemoPauseFromTheList(t *testing.T) {
	term := start(t, 140, 36, nil, "--demo")
	term.waitFor(5*time.Second, "DEMO", "NAMESPACE/NAME")
	term.send(`/argocd/cart\b` + "\r")
	term.waitFor(2*time.Second, "argocd/cart ", "self-heal")
	term.send("p")
	term.waitFor(3*time.Second, "Pause auto-sync and self-heal of argocd/argocd/cart", "driftdeck.io/paused-previous", "Reason:")
	term.send("INC-5150 hotfix on cart")
	term.send("\r") // to the expiry
	term.send("2h\r")
	term.waitFor(2*time.Second, " No ", " Yes ")
	term.send("y")
	term.waitFor(5*time.Second, "— done")
	term.waitUntil(5*time.Second, "cart to show as paused", func(s string) bool {
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, "argocd/cart ") && strings.Contains(line, "paused") {
				return true
			}
		}
		return false
	})
	term.send("\r")
	term.waitFor(3*time.Second, "Paused by driftdeck", "INC-5150 hotfix on cart", "demo-oncall@example.com")
	term.send("\x1b")
	term.waitFor(2*time.Second, "NAMESPACE/NAME")
	term.send("q")
	if code := term.exit(5 * time.Second); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
