package cli

import (
	"strings"
	"testing"
)

func TestLogsPrintTheUnitsPodMaskedAndSayWhichPod(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "logs", "argocd/argocd/search-indexer", "--tail", "3")
	if code != 0 || !strings.Contains(stderr, "pod/search-indexer/search-indexer-reindex-8kq2d, container reindex: pod of Sync hook Job") ||
		strings.Count(out, "\n") != 3 || !strings.Contains(out, "connection refused") {
		t.Fatalf("the stuck sync's hook log: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, "--demo", "logs", "argocd/argocd/search-indexer", "--resource", "pod/search-indexer-2")
	if code != 0 || !strings.Contains(out, "password set to •••") || strings.Contains(out, "Xq7-demo") {
		t.Fatalf("the Secret's value must be masked: exit %d\n%s%s", code, out, stderr)
	}
	code, out, _ = run(t, "--demo", "logs", "argocd/argocd/search-indexer", "--resource", "pod/search-indexer-2", "--previous")
	if code != 0 || !strings.Contains(out, "OutOfMemoryError") {
		t.Fatalf("--previous: exit %d\n%s", code, out)
	}
}

func TestLogsExitCodes(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"argocd/argocd/guestbook"}, exitNotFound, "no pod to show the log of"},
		{[]string{"argocd/argocd/search-indexer", "--resource", "pod/search-indexer-2", "-c", "nope"}, exitUsage, `no container "nope" (have: search-indexer)`},
		{[]string{"argocd/argocd/search-indexer", "--resource", "deployment/x"}, exitUsage, "logs are of pods and Jobs"},
		{[]string{"argocd/argocd/search-indexer", "--resource", "pod/missing"}, exitNotFound, "not found"},
		{[]string{"argocd/argocd/search-indexer", "--since", "soon"}, exitUsage, "invalid argument"},
		{[]string{"argocd/argocd/no-such-app"}, exitNotFound, "does not exist"},
		{[]string{"argocd/argocd/search-indexer", "--resource", "pod/search-indexer-reindex-8kq2d", "--previous"}, exitFailed, "previous terminated container"},
	} {
		code, out, stderr := run(t, append([]string{"--demo", "logs"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.says) {
			t.Errorf("logs %s: exit %d (want %d), stderr %q, stdout %q", strings.Join(c.args, " "), code, c.code, stderr, out)
		}
	}
}
