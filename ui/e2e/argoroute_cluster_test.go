package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// argoServer is a real Argo CD (controller, repo-server, argocd-server)
// on the shared control plane, for one test: stopped when it ends, so that
// it does not load the machine under the tests that follow.
func argoServer(t *testing.T, c *testcluster.Cluster) (*testargocd.ArgoCD, *testargocd.Server) {
	t.Helper()
	argo, err := testargocd.Start(c)
	if err != nil {
		testargocd.Skip(t, err)
	}
	t.Cleanup(func() { _ = argo.Stop() })
	srv, err := argo.StartServer()
	if err != nil {
		t.Fatalf("argocd-server: %v", err)
	}
	return argo, srv
}

// argoAccounts adds local accounts (user: password) to the real
// argocd-server, sets its RBAC policy (argocd-rbac-cm's CSV), and logs each
// in: their tokens.
func argoAccounts(t *testing.T, argo *testargocd.ArgoCD, srv *testargocd.Server, passwords map[string]string, policy string) map[string]string {
	t.Helper()
	for user, password := range passwords {
		if err := srv.AddAccount(argo, user, password); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.SetPolicy(argo, policy); err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{}
	for user, password := range passwords {
		token, err := srv.Token(user, password)
		if err != nil {
			t.Fatal(err)
		}
		tokens[user] = token
	}
	return tokens
}

// The workbench and the commands as Argo CD users whose kube identity may
// do nothing: the list is live from argocd-server, the header names the
// route and the user; `s` on an Application the policy lets dave only look
// at says why in Argo CD's words and opens nothing, and `driftdeck sync`
// as dave exits 4 writing nothing; as erin, who may sync, it syncs, and
// the operation names erin.
func TestClusterTheWorkbenchOfAnArgoCDUserIsLiveFromTheAPIServerAndAsksArgoCDsRBACFirst(t *testing.T) {
	c := testcluster.Shared(t)
	argo, srv := argoServer(t, c)
	tokens := argoAccounts(t, argo, srv, map[string]string{"dave": "dave-password-e2e-41", "erin": "erin-password-e2e-93"},
		"p, role:viewer, applications, get, default/*, allow\n"+
			"p, role:deployer, applications, get, default/*, allow\np, role:deployer, applications, sync, default/*, allow\n"+
			"g, dave, role:viewer\ng, erin, role:deployer\n")
	ns := c.Namespace(t)
	repo := testargocd.NewRepo(t)
	repo.Commit("v1", map[string]string{"web/cm.yaml": testargocd.ConfigMap("web", "v1")})
	apps := dynamic.NewForConfigOrDie(c.Config()).Resource(argocd.Applications).Namespace(testargocd.Namespace)
	app := func(name string) {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": name, "namespace": testargocd.Namespace},
			"spec": map[string]any{"project": "default", "source": map[string]any{"repoURL": repo.URL(), "path": "web", "targetRevision": "main"},
				"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": ns}},
		}}
		if _, err := apps.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = apps.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	app("e2e-route-web")

	nobody := testcluster.KubeconfigIn(t, c.UserConfig(t, "argo-only-"+ns, nil, ""), "argo-user", "default")
	flags := []string{"--kubeconfig", nobody, "--argocd-server", srv.Addr, "--argocd-plaintext"}
	as := func(user string) []string {
		return []string{argodiff.EnvAuthToken + "=" + tokens[user], argodiff.EnvServer + "="}
	}

	term := start(t, 200, 30, as("dave"), flags...)
	term.waitFor(startup, "NAMESPACE/NAME", "argocd/e2e-route-web", "as dave")
	app("e2e-route-new")
	term.waitFor(promptly, "argocd/e2e-route-new") // live: through the API server's feed
	term.send(`/e2e-route-web\b` + "\r")
	term.waitUntil(promptly, "the filter to leave e2e-route-web under the cursor", func(s string) bool {
		return strings.Contains(s, "argocd/e2e-route-web") && !strings.Contains(s, "argocd/e2e-route-new")
	})
	term.send("s")
	s := term.waitFor(promptly, "Argo CD RBAC: dave may not sync applications in project default")
	noForm(t, s)
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d; screen:\n%s", code, term.screen())
	}

	sync := func(user string) (int, string) {
		cmd := exec.Command(binary, append([]string{"sync", "argocd/" + testargocd.Namespace + "/e2e-route-web", "--reason", "INC-5: ship", "--yes"}, flags...)...)
		cmd.Env = append(cmd.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
		cmd.Env = append(cmd.Env, as(user)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, stderr.String()
	}
	if code, stderr := sync("dave"); code != 4 || !strings.Contains(stderr, "Argo CD RBAC: dave may not sync applications in project default") {
		t.Fatalf("sync as dave: exit %d, stderr %q; want 4 in Argo CD RBAC's words", code, stderr)
	}
	get := func() map[string]any {
		o, err := apps.Get(context.Background(), "e2e-route-web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return o.Object
	}
	if _, set := get()["operation"]; set {
		t.Fatal("dave's refused sync wrote an operation")
	}
	if code, stderr := sync("erin"); code != 0 {
		t.Fatalf("sync as erin: exit %d, stderr %q; want 0", code, stderr)
	}
	testcluster.Eventually(t, time.Minute, "the operation initiated by erin", func() bool {
		o := get()
		for _, path := range [][]string{{"operation", "initiatedBy", "username"}, {"status", "operationState", "operation", "initiatedBy", "username"}} {
			if by, _, _ := unstructured.NestedString(o, path...); by == "erin" {
				return true
			}
		}
		return false
	})
}
