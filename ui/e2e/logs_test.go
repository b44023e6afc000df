package e2e

import (
	"strings"
	"testing"
)

// The demo's running Stack opens on its workspace pod's log, which
// progresses as the update runs; the stuck sync's log is its hook Job's
// pod; and the indexer pod whose log prints the value of a Secret it
// references shows it masked, never the value.
func TestDemoLogsOfARunningUpdateAndAHungHook(t *testing.T) {
	term := start(t, 140, 36, nil, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	term.send("/k8s-staging\r")
	term.waitUntil(promptly, "the filter to leave only k8s-staging", func(s string) bool {
		return strings.Contains(s, "platform-infra/k8s-staging") && strings.Count(s, "pulumi ") == 1
	})
	term.send("\r")
	term.waitFor(promptly, "pulumi/platform-infra/k8s-staging", "O logs")
	term.send("O")
	term.waitFor(promptly, "pod/platform-infra/k8s-staging-workspace-0", "container pulumi", "following", "workspace pod") // running Update, or the last one if it already finished
	// One line every 700 ms: the update's summary comes last.
	term.waitFor(startup, "updated (7s)", "Duration: 19s")

	term.send("\x1b") // back to the detail, then the list
	term.waitFor(promptly, "Overview", "O logs")
	term.send("\x1b")
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.send("\x1b") // clear the filter
	term.waitUntil(promptly, "the filter to be cleared", func(s string) bool { return !strings.Contains(s, "/k8s-staging  sort") })
	term.send("/search-indexer\r")
	term.waitUntil(promptly, "the filter to leave only search-indexer", func(s string) bool {
		return strings.Contains(s, "argocd/search-indexer") && strings.Count(s, "argocd ") == 1
	})
	term.send("\r")
	term.waitFor(promptly, "argocd/argocd/search-indexer")
	term.send("O")
	term.waitFor(promptly, "pod/search-indexer/search-indexer-reindex-8kq2d", "Sync hook Job search-indexer-reindex (Running)", "connection refused")
	term.send("\x1b") // back to the detail, then its resource tree's Pod search-indexer-2
	term.waitFor(promptly, "Overview", "O logs")
	term.send("w")
	term.waitFor(promptly, "Resources of argocd/argocd/search-indexer", "Pod/search-indexer-2")
	for range 30 {
		before := treeCursor(term.screen())
		if strings.Contains(before, "Pod/search-indexer-2") {
			break
		}
		term.send("j")
		term.waitUntil(promptly, "the cursor to move", func(s string) bool { return treeCursor(s) != before })
	}
	term.waitUntil(promptly, "the cursor on Pod/search-indexer-2", func(s string) bool { return strings.Contains(treeCursor(s), "Pod/search-indexer-2") })
	term.send("O")
	s := term.waitFor(promptly, "pod/search-indexer/search-indexer-2", "password set to •••")
	if strings.Contains(s, "Xq7-demo") {
		t.Errorf("the demo's Secret value is on screen:\n%s", s)
	}
	term.send("q") // closes the log, then the tree, then the detail, then quits
	term.waitFor(promptly, "Resources of argocd/argocd/search-indexer")
	term.send("q")
	term.waitFor(promptly, "Overview")
	term.send("q")
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
