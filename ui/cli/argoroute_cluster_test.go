package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

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

// fakeArgo answers as an argocd-server with one Application, name, in
// namespace, to token: its list, a feed that stays open, the user.
func fakeArgo(t *testing.T, token, user, namespace, name string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/api/v1/applications":
			fmt.Fprintf(w, `{"items":[{"metadata":{"name":%q,"namespace":%q},"spec":{"project":"default"},"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}}}]}`, name, namespace)
		case "/api/v1/stream/applications":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/api/v1/session/userinfo":
			fmt.Fprintf(w, `{"loggedIn":true,"username":%q}`, user)
		default:
			w.Write([]byte(`{"items":[]}`))
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// Two Argo CD instances side by side, each an argocd CLI context serving
// one kube context: each context's Applications come from its own server,
// as its own user; more Argo CD contexts than kube contexts is a usage
// error, and so is a server given as well.
func TestClusterSeveralArgoCDInstancesAreShownSideBySide(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	ns := c.Namespace(t)
	east := fakeArgo(t, "east-token", "alice", ns, "east-web")
	west := fakeArgo(t, "west-token", "bob", ns, "west-web")
	dir := filepath.Join(t.TempDir(), "argocd")
	cfg := fmt.Sprintf(`current-context: east
contexts:
- {name: east, server: %[1]s, user: %[1]s}
- {name: west, server: %[2]s, user: %[2]s}
servers:
- {server: %[1]s, plain-text: true}
- {server: %[2]s, plain-text: true}
users:
- {name: %[1]s, auth-token: east-token}
- {name: %[2]s, auth-token: west-token}
`, east, west)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(argodiff.EnvConfigDir, dir)
	for _, v := range []string{argodiff.EnvServer, argodiff.EnvAuthToken} {
		t.Setenv(v, "")
	}
	nobody := c.UserConfig(t, "two-argos-"+ns, nil, "")
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := testcluster.WriteKubeconfigContexts(kc, "k-east", map[string]*rest.Config{"k-east": nobody, "k-west": nobody}); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := run(t, "status", "-n", ns, "--engine", "argocd", "--kubeconfig", kc, "--context", "k-east,k-west", "--argocd-context", "east,west", "-o", "json")
	if code != 0 {
		t.Fatalf("two instances: exit %d, stderr %q", code, stderr)
	}
	var units []struct {
		Context, Name string
	}
	if err := json.Unmarshal([]byte(stdout), &units); err != nil {
		t.Fatalf("%v in %q", err, stdout)
	}
	got := map[string]string{}
	for _, u := range units {
		got[u.Name] = u.Context
	}
	if got["east-web"] != "k-east" || got["west-web"] != "k-west" || len(got) != 2 {
		t.Errorf("units by context %v; want east-web in k-east and west-web in k-west, from their own servers", got)
	}

	code, _, stderr = run(t, "status", "-n", ns, "--kubeconfig", kc, "--context", "k-east", "--argocd-context", "east,west")
	if code != 2 || !strings.Contains(stderr, "names 2 Argo CD contexts for 1 kube contexts") {
		t.Errorf("more Argo CD contexts than kube contexts: exit %d, stderr %q; want 2 saying so", code, stderr)
	}
	code, _, stderr = run(t, "status", "-n", ns, "--kubeconfig", kc, "--context", "k-east", "--argocd-context", "east", "--argocd-server", east)
	if code != 2 || !strings.Contains(stderr, "without --argocd-server") {
		t.Errorf("--argocd-context with --argocd-server: exit %d, stderr %q; want 2 saying so", code, stderr)
	}
}
