package cli

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// doctor says when nothing reconciles a context's Stacks: no Pulumi
// operator Deployment, then one with no ready replica; once it is ready,
// nothing needs a human.
func TestClusterDoctorSaysWhenThePulumiOperatorIsNotRunning(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	ns := c.Namespace(t)
	createJSON(t, dynamic.NewForConfigOrDie(c.Config()), ns, stackWithRefs("network", `{}`))
	kubeconfig := testcluster.Kubeconfig(t, c.Config(), "ops")
	doctor := func() (int, string) {
		t.Helper()
		code, stdout, stderr := run(t, "doctor", "--kubeconfig", kubeconfig, "-n", ns)
		if strings.Contains(stderr, "not checked") {
			t.Errorf("stderr: %s", stderr)
		}
		return code, stdout
	}

	code, out := doctor()
	if code != 1 || !strings.Contains(out, "context ops (pulumi)  operator not running\n  cause: no Deployment of the Pulumi Kubernetes Operator") || !strings.Contains(out, "0 unit(s) and 1 context(s) need a human") {
		t.Fatalf("without an operator: exit %d\n%s", code, out)
	}

	kc := c.Kube(t)
	one := int32(1)
	dep, err := kc.AppsV1().Deployments(ns).Create(context.Background(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "controller-manager", Labels: map[string]string{"app.kubernetes.io/name": "pulumi-kubernetes-operator"}},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"control-plane": "controller-manager"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"control-plane": "controller-manager"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "pulumi/pulumi-kubernetes-operator:v2.0.0"}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kc.AppsV1().Deployments(ns).Delete(context.Background(), dep.Name, metav1.DeleteOptions{}) })
	code, out = doctor()
	if code != 1 || !strings.Contains(out, "Deployment "+ns+"/controller-manager of the Pulumi operator has no ready replica (1 wanted)") {
		t.Fatalf("with an operator not ready: exit %d\n%s", code, out)
	}

	dep.Status = appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	if _, err := kc.AppsV1().Deployments(ns).UpdateStatus(context.Background(), dep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if code, out = doctor(); code != 0 || !strings.Contains(out, "nothing needs a human") {
		t.Fatalf("with the operator 2.x ready and its CRDs served: exit %d\n%s", code, out)
	}
}
