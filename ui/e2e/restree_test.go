package e2e

import (
	"strings"
	"testing"
)

// The real binary on the demo: an Application's live resource tree opens
// from its detail view, shows why a Pod is unhealthy, and marks resources
// for a sync whose dialog offers the sync options.
func TestDemoResourceTreeShowsTheCrashingPodAndOffersTheSyncOptions(t *testing.T) {
	term := start(t, 160, 40, nil, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	term.send("/")
	term.send("payments-api")
	term.send("\r")
	term.waitUntil(promptly, "the filter to leave payments-api", func(s string) bool {
		return strings.Contains(s, "payments-api") && strings.Count(s, "argocd ") == 1
	})
	term.send("\r")
	term.waitFor(promptly, "argocd/team-payments/payments-api", "Overview")
	term.send("w")
	term.waitFor(promptly, "Resources of argocd/team-payments/payments-api", "live objects from demo",
		`exceeded its progress deadline`, "└ ReplicaSet/payments-api-6d9f7c5b8", "CrashLoopBackOff")
	// Mark the Deployment and sync it: the dialog offers the sync options.
	for range 12 {
		before := treeCursor(term.screen())
		if strings.Contains(before, "> [ ] Deployment/payments-api") {
			break
		}
		term.send("j")
		term.waitUntil(promptly, "the cursor to move", func(s string) bool { return treeCursor(s) != before })
	}
	term.waitFor(promptly, "> [ ] Deployment/payments-api")
	term.send(" ")
	term.waitFor(promptly, "[x] Deployment/payments-api", "1 marked")
	term.send("s")
	term.waitFor(promptly, "1 selected resources only", "[ ] prune", "[ ] force", "[ ] apply out-of-sync only", "[ ] Argo CD dry run")
	term.send("\x1b")
	term.waitFor(promptly, "Resources of argocd/team-payments/payments-api")
	term.send("\x1b") // clears the mark
	term.waitUntil(promptly, "the mark to be cleared", func(s string) bool { return !strings.Contains(s, "1 marked") })
	term.send("\x1b") // back to the detail
	term.waitFor(promptly, "Overview")
	term.send("q")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// treeCursor is the tree's row under the cursor.
func treeCursor(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "> [") {
			return l
		}
	}
	return ""
}
