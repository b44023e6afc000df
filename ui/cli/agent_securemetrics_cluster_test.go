package cli

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// The agent serves /metrics over TLS by default, to a bearer token the API
// server authenticates and allows to get /metrics (deploy/rbac.yaml's
// driftdeck-metrics-reader), and to nobody else.
func TestClusterTheAgentServesMetricsOnlyToWhomTheAPIServerAllows(t *testing.T) {
	bin := builtBinary(t)
	isolate(t)
	c := testcluster.Shared(t)
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	c.Apply(t, filepath.Join(root, "deploy", "namespace.yaml"), filepath.Join(root, "deploy", "rbac.yaml"))
	kc := kubernetes.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	ctx := context.Background()
	token := func(name string) string {
		if _, err := kc.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		tr, err := kc.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authnv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	scraper, nobody := token("prometheus"), token("nobody")
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "metrics-" + ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "driftdeck-metrics-reader"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "prometheus", Namespace: ns}}}
	if _, err := kc.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kc.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})

	p := startAgent(t, bin, "secure", "", "--metrics-secure=true", "--kubeconfig", testcluster.Kubeconfig(t, c.Config(), "kind-test"),
		"-n", ns, "--leader-elect=false")
	if !strings.Contains(p.stderr.String(), "/metrics over HTTPS to callers kind-test's API server authorizes") {
		t.Errorf("the agent does not say how /metrics is served: %s", p.stderr.String())
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	scrape := func(bearer string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, "https://"+p.metrics+"/metrics", nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("scraping over TLS: %v", err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, _ := scrape(""); code != http.StatusUnauthorized {
		t.Errorf("without a token: %d; want 401", code)
	}
	if code, _ := scrape("not-a-token"); code != http.StatusUnauthorized {
		t.Errorf("with a token the API server does not know: %d; want 401", code)
	}
	if code, body := scrape(nobody); code != http.StatusForbidden || !strings.Contains(body, "driftdeck-metrics-reader") {
		t.Errorf("a ServiceAccount not allowed: %d %s; want 403 naming the ClusterRole", code, body)
	}
	var code int
	var body string
	testcluster.Eventually(t, 30*time.Second, "the reader's scrape answered (RBAC in force)", func() bool {
		code, body = scrape(scraper)
		return code == http.StatusOK
	})
	if !strings.Contains(body, "driftdeck_agent_ready") {
		t.Errorf("the allowed scrape has no driftdeck series:\n%.500s", body)
	}
	if resp, err := http.Get("http://" + p.metrics + "/metrics"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("/metrics answered plain HTTP")
		}
	}
}
