package cli

import (
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// With an Argo CD API server configured that nothing answers, status says
// so at once and exits 3, instead of waiting out its timeout for the
// Applications' first list; the token is never printed.
func TestClusterStatusThroughAnArgoCDServerThatIsDownSaysSoAtOnce(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	server := testcluster.RefusedURL(t)
	code, _, stderr := run(t, "status", "--kubeconfig", testcluster.Kubeconfig(t, c.Config(), "argo-down"),
		"--argocd-server", server, "--argocd-token", "token-not-to-print", "--request-timeout", "60s")
	if code != 3 || !strings.Contains(stderr, "Argo CD API server "+server+" unreachable") || strings.Contains(stderr, "token-not-to-print") {
		t.Fatalf("exit %d, stderr %q; want 3 naming the server as unreachable", code, stderr)
	}
	// Waiting for the Applications' first list would end in the timeout's
	// words instead.
	if strings.Contains(stderr, "did not answer in time") {
		t.Errorf("status waited out its timeout instead of saying the server is down: %q", stderr)
	}
}
