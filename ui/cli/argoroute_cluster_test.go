package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/testkit/testsecrets"

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

// A login found only in the argocd CLI's config file is the route to Argo
// CD for an identity that may not list Applications through Kubernetes,
// and not for one that may: the file may name another instance.
func TestClusterTheArgocdLoginInTheConfigFileIsTheRouteOnlyWhenKubernetesRefusesTheApplications(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	server := strings.TrimPrefix(testcluster.RefusedURL(t), "https://")
	dir := filepath.Join(t.TempDir(), "argocd")
	testsecrets.WriteArgoConfig(t, dir, server, "token-from-the-file")
	t.Setenv(argodiff.EnvConfigDir, dir)
	for _, v := range []string{argodiff.EnvServer, argodiff.EnvAuthToken} {
		t.Setenv(v, "")
	}
	ns := c.Namespace(t)

	// May list Applications: read through Kubernetes, as before.
	code, _, stderr := run(t, "status", "-n", ns, "--kubeconfig", testcluster.Kubeconfig(t, c.Config(), "admin"))
	if code != 0 {
		t.Fatalf("an identity that may list Applications: exit %d, stderr %q; want 0 through Kubernetes", code, stderr)
	}
	// May not: through the API server the file names (down here).
	nobody := c.UserConfig(t, "no-apps-"+ns, nil, "")
	code, _, stderr = run(t, "status", "-n", ns, "--kubeconfig", testcluster.Kubeconfig(t, nobody, "nobody"))
	if code != 3 || !strings.Contains(stderr, "Argo CD API server "+server+" unreachable") {
		t.Fatalf("an identity that may not list Applications: exit %d, stderr %q; want 3 through the API server %s", code, stderr, server)
	}
}
