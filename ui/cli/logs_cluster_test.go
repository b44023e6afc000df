package cli

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// driftdeck logs on a Stack prints its workspace pod's log, read through the
// real apiserver's pods/log proxy from a kubelet-like test server (envtest
// has no kubelet), masked and escaped; a viewer without pods/log gets exit 4.
func TestClusterLogsCommandPrintsTheWorkspacePodsLog(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	ns := c.Namespace(t)
	kubelet := c.FakeKubelet(t)
	kc := c.Kube(t)
	ctx := context.Background()
	const planted = "cli-planted-token-5e7d"
	if _, err := kc.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "net-env"},
		StringData: map[string]string{"PULUMI_ACCESS_TOKEN": planted}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	createJSON(t, dynamic.NewForConfigOrDie(c.Config()), ns, `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"net"},
		"spec":{"stack":"org/net/prod","projectRepo":"https://git.example.com/i.git","branch":"main"},"status":{}}`)
	_, err := kc.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "net-workspace-0", Labels: map[string]string{"auto.pulumi.com/component": "workspace", "auto.pulumi.com/workspace-name": "net"}},
		Spec: corev1.PodSpec{NodeName: kubelet.Node, Containers: []corev1.Container{{Name: "pulumi", Image: "pulumi/pulumi:3",
			EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "net-env"}}}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kubelet.SetLog(ns, "net-workspace-0", "pulumi", "Updating (org/net/prod)\n\x1b[32m+ created\x1b[0m\ntoken "+planted+"\n", nil)
	kcfg := testcluster.Kubeconfig(t, c.Config(), "test")

	code, out, stderr := run(t, "logs", "pulumi/"+ns+"/net", "--kubeconfig", kcfg, "--since", "1h", "--tail", "10", "--timestamps")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "pod/"+ns+"/net-workspace-0, container pulumi: workspace pod (no Update running)") {
		t.Errorf("the header names the pod and why:\n%s", stderr)
	}
	if strings.Contains(out, planted) || strings.ContainsAny(out, "\x1b") || !strings.Contains(out, `\x1b[32m+ created\x1b[0m`) || !strings.Contains(out, "token •••") {
		t.Errorf("the log must be masked and escaped:\n%q", out)
	}
	if req, _ := kubelet.LastRequest(ns, "net-workspace-0"); req.Query.Get("sinceSeconds") != "3600" || req.Query.Get("tailLines") != "10" || req.Query.Get("timestamps") != "true" {
		t.Errorf("the kubelet was asked %v", req.Query)
	}

	cfg := c.UserConfig(t, "no-pod-logs-"+ns, []rbacv1.PolicyRule{
		{APIGroups: []string{"pulumi.com"}, Resources: []string{"stacks"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{""}, Resources: []string{"pods", "secrets"}, Verbs: []string{"get", "list"}},
	}, ns)
	code, _, stderr = run(t, "logs", "pulumi/"+ns+"/net", "--kubeconfig", testcluster.Kubeconfig(t, cfg, "test"))
	if code != exitForbidden || !strings.Contains(stderr, "forbidden") {
		t.Errorf("without pods/log: exit %d (want %d): %s", code, exitForbidden, stderr)
	}
}
