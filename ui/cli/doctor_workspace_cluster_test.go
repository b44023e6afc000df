package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/workspace"
)

// workspacePod is a Stack's workspace pod as the operator makes it, its
// pulumi container terminated for reason, and waiting to start again.
func workspacePod(t *testing.T, c *testcluster.Cluster, ns, stack, reason string) {
	t.Helper()
	kc := c.Kube(t)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: stack + "-workspace-0",
			Labels: map[string]string{workspace.LabelComponent: "workspace", workspace.LabelName: stack}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "pulumi", Image: "pulumi/pulumi:3",
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}}}}},
	}
	pod, err := kc.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	finished := metav1.NewTime(time.Now().Add(-3 * time.Minute))
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "pulumi", RestartCount: 2,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: 137, FinishedAt: finished}}}}}
	if _, err := kc.CoreV1().Pods(ns).UpdateStatus(context.Background(), pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// doctor names the Stack whose workspace pod the kernel killed for memory,
// with the limit and the guide's advice, and not the one whose pod failed
// otherwise; an identity that may list pods only in the Stacks' namespace
// finds it too.
func TestClusterDoctorNamesAStackWhoseWorkspaceWasKilledForMemory(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	createJSON(t, dyn, ns, stackWithRefs("hungry", `{}`))
	createJSON(t, dyn, ns, stackWithRefs("calm", `{}`))
	workspacePod(t, c, ns, "hungry", "OOMKilled")
	workspacePod(t, c, ns, "calm", "Error")

	want := "pulumi/" + ns + "/hungry  killed for memory\n  cause: workspace pod hungry-workspace-0: container pulumi was killed for memory (OOMKilled) at its memory limit 64Mi, 3m"
	check := func(who, kubeconfig string) {
		t.Helper()
		code, stdout, stderr := run(t, "doctor", "--kubeconfig", kubeconfig, "-n", ns)
		if code != 1 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "restarted 2 times") {
			t.Fatalf("%s: exit %d, want 1 and\n%s\nstdout:\n%s\nstderr:\n%s", who, code, want, stdout, stderr)
		}
		if !strings.Contains(stdout, "spec.workspaceTemplate.spec.resources.limits.memory") || !strings.Contains(stdout, "retry pulumi/"+ns+"/hungry") {
			t.Errorf("%s: the advice and the retry are missing:\n%s", who, stdout)
		}
		if strings.Contains(stdout, "/calm  killed") {
			t.Errorf("%s: a pod that failed otherwise is called killed for memory:\n%s", who, stdout)
		}
	}
	check("admin", testcluster.Kubeconfig(t, c.Config(), "admin"))

	cfg := c.UserConfig(t, "pod-reader-"+ns, []rbacv1.PolicyRule{
		{APIGroups: []string{"pulumi.com"}, Resources: []string{"stacks"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list"}},
	}, ns)
	check("who may list pods in "+ns+" only", testcluster.Kubeconfig(t, cfg, "reader"))
}
