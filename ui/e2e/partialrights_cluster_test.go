package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// The workbench as a tenant who may read Applications in its namespace and
// nothing else: the list shows its Application, live, and the header names
// what is not shown, as a notice, not as an error.
func TestClusterTheWorkbenchOfATenantWithPartialRightsIsLive(t *testing.T) {
	c := testcluster.Shared(t)
	ns := c.Namespace(t)
	app := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"web"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"}},
		"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}}}`), &app.Object); err != nil {
		t.Fatal(err)
	}
	if _, err := dynamic.NewForConfigOrDie(c.Config()).Resource(argocd.Applications).Namespace(ns).Create(context.Background(), app, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := c.UserConfig(t, "tui-tenant-"+ns, []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "list", "watch"}}}, ns)
	term := start(t, 200, 30, nil, "--read-only", "--kubeconfig", testcluster.KubeconfigIn(t, cfg, "tenant", ns))
	s := term.waitFor(startup, "NAMESPACE/NAME", ns+"/web", "● live", "not shown: ")
	header := strings.SplitN(s, "\n", 2)[0]
	if strings.Contains(header, "error") || strings.Contains(header, "DISCONNECTED") {
		t.Errorf("partial rights read as an error in the header:\n%s", s)
	}
	// The namespace, long in a test, is cut at the screen's edge.
	if !strings.Contains(header, "Argo CD Applications outside "+ns[:20]) {
		t.Errorf("the header does not say the Applications are read in %s only:\n%s", ns, s)
	}
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
