package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// The logs of an Application's pods through the real argocd-server, for
// Argo CD users whose kube identity may read nothing: argocd-server reads
// them from the destination cluster (the fake kubelet behind the real
// kube-apiserver) under Argo CD's RBAC. A pod named with --resource, and
// by default the pod of the Application's Job, each printed escaped, with
// the warning that Secret values are not masked; a user whom the policy
// does not let read logs is refused in Argo CD's words, exit 4; a pod
// outside the Application's tree is not found, exit 5, rather than an
// empty log.
func TestClusterPodLogsOfAnArgoCDUserComeThroughTheAPIServer(t *testing.T) {
	c := testcluster.Shared(t)
	argo, srv := argoServer(t, c)
	kubelet := c.FakeKubelet(t)
	ns := c.Namespace(t)
	kc := c.Kube(t)
	ctx := context.Background()
	if _, err := kc.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tokens := argoAccounts(t, argo, srv, map[string]string{"frank": "frank-password-logs-7", "gina": "gina-password-logs-3"},
		"p, role:reader, applications, get, default/*, allow\np, role:reader, logs, get, default/*, allow\n"+
			"p, role:looker, applications, get, default/*, allow\ng, frank, role:reader\ng, gina, role:looker\n")

	repo := testargocd.NewRepo(t)
	repo.Commit("v1", map[string]string{
		"logs/pod.yaml": fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-0\n  namespace: %s\nspec:\n  nodeName: %s\n  automountServiceAccountToken: false\n  containers:\n  - name: web\n    image: example.invalid/web\n", ns, kubelet.Node),
		"logs/job.yaml": fmt.Sprintf("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  namespace: %s\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: migrate\n        image: example.invalid/migrate\n", ns),
	})
	apps := dynamic.NewForConfigOrDie(c.Config()).Resource(argocd.Applications).Namespace(testargocd.Namespace)
	app := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "e2e-logs", "namespace": testargocd.Namespace},
		"spec": map[string]any{"project": "default", "source": map[string]any{"repoURL": repo.URL(), "path": "logs", "targetRevision": "main"},
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": ns},
			"syncPolicy":  map[string]any{"automated": map[string]any{}}},
	}}
	if _, err := apps.Create(ctx, app, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = apps.Delete(context.Background(), "e2e-logs", metav1.DeleteOptions{}) })

	// What the scheduler, the Job controller and the kubelet would do.
	var web *corev1.Pod
	testcluster.Eventually(t, 3*time.Minute, "Argo CD to create the Pod and the Job", func() bool {
		p, err := kc.CoreV1().Pods(ns).Get(ctx, "web-0", metav1.GetOptions{})
		_, jerr := kc.BatchV1().Jobs(ns).Get(ctx, "migrate", metav1.GetOptions{})
		web = p
		return err == nil && jerr == nil
	})
	running := corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	web.Status = running
	if _, err := kc.CoreV1().Pods(ns).UpdateStatus(ctx, web, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	job, err := kc.BatchV1().Jobs(ns).Get(ctx, "migrate", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hookPod, err := kc.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "migrate-x7k2p", Labels: job.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "migrate", UID: job.UID, Controller: new(true)}}},
		Spec: corev1.PodSpec{NodeName: kubelet.Node, RestartPolicy: corev1.RestartPolicyNever, AutomountServiceAccountToken: new(bool),
			Containers: []corev1.Container{{Name: "migrate", Image: "example.invalid/migrate"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hookPod.Status = running
	if _, err := kc.CoreV1().Pods(ns).UpdateStatus(ctx, hookPod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubelet.SetLog(ns, "web-0", "web", "listening on :8080\n\x1b]0;retitled\x07 \x1b[31mred\x1b[0m\n", nil)
	kubelet.SetLog(ns, "migrate-x7k2p", "migrate", "migrated 3 tables\n", nil)

	nobody := testcluster.KubeconfigIn(t, c.UserConfig(t, "logs-nobody-"+ns, nil, ""), "argo-user", "default")
	logs := func(user string, args ...string) (int, string, string) {
		env := append(os.Environ(), argodiff.EnvAuthToken+"="+tokens[user], argodiff.EnvServer+"=",
			"XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"), "XDG_CONFIG_HOME="+t.TempDir())
		stdout, code, stderr := runDriftdeck(env, append([]string{"logs", "argocd/" + testargocd.Namespace + "/e2e-logs",
			"--kubeconfig", nobody, "--argocd-server", srv.Addr, "--argocd-plaintext"}, args...)...)
		return code, stdout, stderr
	}
	var code int
	var stdout, stderr string
	// The controller puts the pods in the Application's tree once its
	// cache has them.
	testcluster.Eventually(t, 3*time.Minute, "the Job's pod's log through the API server", func() bool {
		code, stdout, stderr = logs("frank")
		return code == 0
	})
	if !strings.Contains(stdout, "migrated 3 tables") || !strings.Contains(stderr, "migrate-x7k2p") || !strings.Contains(stderr, "pod of Job migrate") ||
		!strings.Contains(stderr, "not masked") {
		t.Errorf("the Job's pod's log:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	code, stdout, stderr = logs("frank", "--resource", "pod/web-0")
	if code != 0 || !strings.Contains(stdout, "listening on :8080") || strings.ContainsAny(stdout, "\x1b\x07") || !strings.Contains(stdout, `\x1b[31mred`) {
		t.Errorf("web-0's log: exit %d\nstdout:\n%q\nstderr:\n%s", code, stdout, stderr)
	}
	if req, _ := kubelet.LastRequest(ns, "web-0"); req.Container != "web" {
		t.Errorf("the kubelet was asked for container %q; want the pod's only one", req.Container)
	}
	if code, _, stderr = logs("frank", "--resource", "pod/not-in-the-tree"); code != 5 || !strings.Contains(stderr, "not in its resource tree") {
		t.Errorf("a pod outside the tree: exit %d, stderr %q; want 5 saying so", code, stderr)
	}
	if code, stdout, stderr = logs("gina", "--resource", "pod/web-0"); code != 4 || !strings.Contains(stderr, "permission denied") || stdout != "" {
		t.Errorf("a user who may not read logs: exit %d, stdout %q, stderr %q; want 4 in Argo CD's words", code, stdout, stderr)
	}
}
