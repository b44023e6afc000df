package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testsecrets"
	"github.com/driftdeck/driftdeck/backend/testkit/testsso"
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

// An SSO login whose token expired: status renews it with the refresh
// token the argocd CLI stored, at the server's Dex, writes both back, and
// reads the Applications with the new token; a refresh token the provider
// will not take ends in exit 4 and one message saying to log in with SSO.
func TestClusterStatusRenewsAnExpiredSSOLoginAsTheArgocdCLIDoes(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	ns := c.Namespace(t)
	var sso *testsso.Provider
	sso = testsso.Start(t, "refresh-1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sso.Issued() == "" || r.Header.Get("Authorization") != "Bearer "+sso.Issued() {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"code":16,"message":"invalid session: token has expired"}`))
			return
		}
		switch r.URL.Path {
		case "/api/v1/applications":
			fmt.Fprintf(w, `{"items":[{"metadata":{"name":"sso-web","namespace":%q},"spec":{"project":"default"},"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}}}]}`, ns)
		case "/api/v1/stream/applications":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/api/v1/session/userinfo":
			w.Write([]byte(`{"loggedIn":true,"username":"alice"}`))
		default:
			w.Write([]byte(`{"items":[]}`))
		}
	}))
	host := strings.TrimPrefix(sso.URL, "http://")
	dir := filepath.Join(t.TempDir(), "argocd")
	t.Setenv(argodiff.EnvConfigDir, dir)
	for _, v := range []string{argodiff.EnvServer, argodiff.EnvAuthToken} {
		t.Setenv(v, "")
	}
	nobody := testcluster.Kubeconfig(t, c.UserConfig(t, "sso-"+ns, nil, ""), "nobody")
	expired := testsso.JWT(time.Now().Add(-time.Hour), "alice")

	path := testsso.WriteConfig(t, dir, host, expired, "refresh-1")
	code, stdout, stderr := run(t, "status", "-n", ns, "--engine", "argocd", "--kubeconfig", nobody)
	if code != 0 || !strings.Contains(stdout, ns+"/sso-web") {
		t.Fatalf("status with an expired SSO login: exit %d, stdout %q, stderr %q; want 0 with the Application", code, stdout, stderr)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), sso.Issued()) || !strings.Contains(string(data), "refresh-1-next") {
		t.Errorf("the argocd config does not hold the renewed tokens:\n%s", data)
	}

	testsso.WriteConfig(t, dir, host, expired, "refresh-claimed")
	code, _, stderr = run(t, "status", "-n", ns, "--engine", "argocd", "--kubeconfig", nobody)
	if code != 4 || !strings.Contains(stderr, "argocd login --sso "+host) || strings.Count(stderr, "argocd login") != 1 {
		t.Fatalf("status with a refresh token the provider refuses: exit %d, stderr %q; want 4 and one message to run argocd login --sso %s", code, stderr, host)
	}
}
