package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// argocd-server not exposed, reached as `argocd --port-forward` reaches
// it: through the Kubernetes API's port-forward to its pod (the kubelet's
// side played by the fake kubelet, which pipes the pod's port to the real
// argocd-server). The real argocd CLI logs in that way; driftdeck then
// lists the Applications with that login and a kube identity that may
// only find and port-forward to pods in Argo CD's namespace. When the pod
// is replaced, the next command reaches the new one; with no ready pod, it
// says so and exits non-zero.
func TestClusterArgoCDThroughAPortForwardToItsPodAsTheArgocdCLIReachesIt(t *testing.T) {
	c := testcluster.Shared(t)
	_, srv := argoServer(t, c)
	kubelet := c.FakeKubelet(t)
	serverPod := map[string]string{"app.kubernetes.io/name": "argocd-server"}
	kubelet.RunPod(t, c, testargocd.Namespace, "argocd-server-5d8f", serverPod)
	kubelet.Forward(testargocd.Namespace, "argocd-server-5d8f", 8080, srv.Addr)

	ns := c.Namespace(t)
	apps := dynamic.NewForConfigOrDie(c.Config()).Resource(argocd.Applications).Namespace(testargocd.Namespace)
	create := func(name, project string, labels map[string]any) {
		app := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": name, "namespace": testargocd.Namespace, "labels": labels},
			"spec": map[string]any{"project": project, "source": map[string]any{"repoURL": "https://example.invalid/repo.git", "path": "web"},
				"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": ns}},
		}}
		if _, err := apps.Create(context.Background(), app, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = apps.Delete(context.Background(), name, metav1.DeleteOptions{}) })
	}
	create("e2e-forwarded", "default", map[string]any{"team": "web"})
	create("e2e-forwarded-payments", "payments", map[string]any{"team": "payments"})

	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}},
		{APIGroups: []string{""}, Resources: []string{"pods/portforward"}, Verbs: []string{"create", "get"}},
	}
	kubeconfig := testcluster.KubeconfigIn(t, c.UserConfig(t, "forwarder-"+ns, rules, testargocd.Namespace), "forwarder", "default")
	home := t.TempDir()
	if err := srv.LoginPortForward(home, kubeconfig, testargocd.Namespace); err != nil {
		t.Fatalf("argocd login --port-forward: %v", err)
	}
	status := func(extra ...string) (int, string, string) {
		env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=", "ARGOCD_CONFIG_DIR=", "ARGOCD_SERVER=", "ARGOCD_AUTH_TOKEN=",
			"XDG_STATE_HOME="+filepath.Join(home, "state"))
		stdout, code, stderr := runDriftdeck(env, append([]string{"status", "-A", "--engine", "argocd", "--kubeconfig", kubeconfig,
			"--argocd-port-forward", "--argocd-port-forward-namespace", testargocd.Namespace, "--request-timeout", "60s"}, extra...)...)
		return code, stdout, stderr
	}
	code, stdout, stderr := status()
	if code != 0 || !strings.Contains(stdout, "e2e-forwarded ") || !strings.Contains(stdout, "e2e-forwarded-payments") {
		t.Fatalf("status through the port-forward: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	// What argocd-server sends, limited as argocd app list -p and -l do.
	for _, limit := range [][]string{{"--argocd-project", "payments"}, {"--argocd-selector", "team=payments"}} {
		code, stdout, stderr = status(limit...)
		if code != 0 || !strings.Contains(stdout, "e2e-forwarded-payments") || strings.Contains(stdout, "e2e-forwarded ") {
			t.Fatalf("status %v: exit %d; want only e2e-forwarded-payments\nstdout:\n%s\nstderr:\n%s", limit, code, stdout, stderr)
		}
	}
	if code, _, stderr = status("--argocd-selector", "team in (payments"); code != 2 || !strings.Contains(stderr, "--argocd-selector") {
		t.Errorf("a broken selector: exit %d, stderr %q; want 2 naming the flag", code, stderr)
	}

	// A rollout: the old pod goes, a new one serves.
	kubelet.Forward(testargocd.Namespace, "argocd-server-5d8f", 8080, "")
	if err := c.Kube(t).CoreV1().Pods(testargocd.Namespace).Delete(context.Background(), "argocd-server-5d8f", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = status()
	if code == 0 || !strings.Contains(stderr, "no such pod is running and ready") || !strings.Contains(stderr, "app.kubernetes.io/name=argocd-server") {
		t.Fatalf("status with no argocd-server pod: exit %d, stderr %q; want non-zero naming the pod it looked for", code, stderr)
	}
	kubelet.RunPod(t, c, testargocd.Namespace, "argocd-server-7b2c", serverPod)
	kubelet.Forward(testargocd.Namespace, "argocd-server-7b2c", 8080, srv.Addr)
	if code, stdout, stderr = status(); code != 0 || !strings.Contains(stdout, "e2e-forwarded") {
		t.Fatalf("status through the new pod: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
