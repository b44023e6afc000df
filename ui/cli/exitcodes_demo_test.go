package cli

import (
	"strings"
	"testing"
)

// A diff that could not be computed (the demo's web-frontend reads a git
// repository nobody can fetch; a test binary has no render helper either)
// must not exit 1, which a script reads as "differences found".
func TestADiffThatFailsDoesNotExitAsDifferencesFound(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "diff", "kustomization/team-web/web-frontend")
	if code != exitDiffFailed || !strings.Contains(stderr, "error:") || strings.Contains(stderr, " modified, ") {
		t.Errorf("a diff that failed: exit %d, want %d with the error and no summary\nstdout: %s\nstderr: %s", code, exitDiffFailed, out, stderr)
	}
}

func TestTheDemoRefusesAContextItDoesNotHave(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{
		{"--demo", "--context", "nope", "status"},
		{"--demo", "--context", "demo,nope", "status"},
		{"--demo", "--context", "nope", "refresh", "argocd/argocd/guestbook"},
	} {
		code, out, stderr := run(t, args...)
		if code != exitUsage || !strings.Contains(stderr, `context "nope" not found`) || out != "" {
			t.Errorf("driftdeck %s: exit %d, stdout %q, stderr %q; want exit 2, unknown context", strings.Join(args, " "), code, out, stderr)
		}
	}
	code, out, stderr := run(t, "--demo", "--context", "demo", "status", "argocd/argocd/guestbook")
	if code != 0 || !strings.Contains(out, "argocd/argocd/guestbook") {
		t.Errorf("the demo's own context: exit %d\n%s%s", code, out, stderr)
	}
}

// The flags that choose how argocd-server is reached and what it sends
// have nothing to act on in the demo: refused, not ignored.
func TestTheDemoRefusesTheArgoCDServerRoutesFlags(t *testing.T) {
	isolate(t)
	for _, flag := range [][]string{{"--argocd-port-forward"}, {"--argocd-port-forward-namespace", "argocd"}, {"--argocd-project", "default"}, {"--argocd-selector", "team=web"}} {
		code, out, stderr := run(t, append([]string{"--demo", "status"}, flag...)...)
		if code != exitUsage || !strings.Contains(stderr, "the demo has no argocd-server") || out != "" {
			t.Errorf("driftdeck --demo status %s: exit %d, stdout %q, stderr %q; want exit 2 saying why", strings.Join(flag, " "), code, out, stderr)
		}
	}
}
