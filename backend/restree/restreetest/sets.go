package restreetest

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// statefulAndDaemonSets creates a StatefulSet db whose one replica is
// rolled out (pod db-0 ready) and a DaemonSet log-agent that wants two
// pods and has one available (log-agent-q8x2z ready, log-agent-w4n7c
// still pulling its image), with the status their controllers write.
func statefulAndDaemonSets(t *testing.T, kc kubernetes.Interface, ns, node string) {
	t.Helper()
	ctx := context.Background()
	one := int32(1)
	dbLabels := map[string]string{"app": "db"}
	dbContainers := []corev1.Container{{Name: "postgres", Image: "registry.example/postgres:16"}}
	sts, err := kc.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: appsv1.StatefulSetSpec{Replicas: &one, ServiceName: "db", Selector: &metav1.LabelSelector{MatchLabels: dbLabels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: dbLabels}, Spec: corev1.PodSpec{Containers: dbContainers}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sts.Status = appsv1.StatefulSetStatus{ObservedGeneration: sts.Generation, Replicas: 1, ReadyReplicas: 1, CurrentReplicas: 1, UpdatedReplicas: 1,
		AvailableReplicas: 1, CurrentRevision: "db-5d8c7b9f4", UpdateRevision: "db-5d8c7b9f4"}
	if _, err := kc.AppsV1().StatefulSets(ns).UpdateStatus(ctx, sts, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	createPod(t, kc, ns, node, "db-0", dbLabels, ownerRef("apps/v1", "StatefulSet", sts.Name, sts.UID), corev1.RestartPolicyAlways, dbContainers, readyPod("postgres"))

	agentLabels := map[string]string{"app": "log-agent"}
	agentContainers := []corev1.Container{{Name: "agent", Image: "registry.example/log-agent:2.1"}}
	ds, err := kc.AppsV1().DaemonSets(ns).Create(ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "log-agent"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: agentLabels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: agentLabels}, Spec: corev1.PodSpec{Containers: agentContainers}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation, DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, UpdatedNumberScheduled: 2,
		NumberReady: 1, NumberAvailable: 1, NumberUnavailable: 1}
	if _, err := kc.AppsV1().DaemonSets(ns).UpdateStatus(ctx, ds, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	dsRef := ownerRef("apps/v1", "DaemonSet", ds.Name, ds.UID)
	createPod(t, kc, ns, node, "log-agent-q8x2z", agentLabels, dsRef, corev1.RestartPolicyAlways, agentContainers, readyPod("agent"))
	createPod(t, kc, ns, node, "log-agent-w4n7c", agentLabels, dsRef, corev1.RestartPolicyAlways, agentContainers, corev1.PodStatus{Phase: corev1.PodPending,
		ContainerStatuses: []corev1.ContainerStatus{{Name: "agent", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason: "ImagePullBackOff", Message: `Back-off pulling image "registry.example/log-agent:2.1"`}}}}})
}

// ingress creates the Ingress api in front of the Service api, with the
// address its ingress controller published.
func ingress(t *testing.T, kc kubernetes.Interface, ns string) {
	t.Helper()
	ctx := context.Background()
	prefix := networkingv1.PathTypePrefix
	ing, err := kc.NetworkingV1().Ingresses(ns).Create(ctx, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "api"},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "api.example.com", IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/", PathType: &prefix,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "api", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.10"}}
	if _, err := kc.NetworkingV1().Ingresses(ns).UpdateStatus(ctx, ing, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
