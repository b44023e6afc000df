// Package restreetest holds the live objects and the Application that the
// real-cluster tests of the resource tree share (the backend's and the
// command line's).
package restreetest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/argocd"
)

// LiveWorkload creates, in ns, what the Deployment, ReplicaSet and Job
// controllers would have made (envtest runs no controllers): a Deployment
// rolling out, its ReplicaSet, one ready Pod and one crash-looping, a
// Service, a hook Job with its running Pod, a rolled-out StatefulSet, a
// DaemonSet rolling out and an Ingress with its address, each with the
// ownerReferences and the status the controllers and kubelet write. The
// pods run on node ("" for none): a FakeKubelet's, to serve
// their logs.
func LiveWorkload(t *testing.T, kc kubernetes.Interface, ns, node string) {
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := kc.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	must(err)
	labels := map[string]string{"app": "api"}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "registry.example/api:1.4"}}}}
	two := int32(2)
	d, err := kc.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api"},
		Spec: appsv1.DeploymentSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl}}, metav1.CreateOptions{})
	must(err)
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 1}
	_, err = kc.AppsV1().Deployments(ns).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	must(err)
	rs, err := kc.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "api-7f9c", Labels: labels, OwnerReferences: []metav1.OwnerReference{ownerRef("apps/v1", "Deployment", d.Name, d.UID)}},
		Spec:       appsv1.ReplicaSetSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl}}, metav1.CreateOptions{})
	must(err)
	rs.Status = appsv1.ReplicaSetStatus{ObservedGeneration: rs.Generation, Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, FullyLabeledReplicas: 2}
	_, err = kc.AppsV1().ReplicaSets(ns).UpdateStatus(ctx, rs, metav1.UpdateOptions{})
	must(err)
	pod := func(name string, owner metav1.OwnerReference, restart corev1.RestartPolicy, st corev1.PodStatus) {
		t.Helper()
		createPod(t, kc, ns, node, name, labels, owner, restart, tmpl.Spec.Containers, st)
	}
	rsRef := ownerRef("apps/v1", "ReplicaSet", rs.Name, rs.UID)
	pod("api-7f9c-ready", rsRef, corev1.RestartPolicyAlways, readyPod("api"))
	pod("api-7f9c-crash", rsRef, corev1.RestartPolicyAlways, corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "api", RestartCount: 7, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
			Reason: "CrashLoopBackOff", Message: "back-off 5m0s restarting failed container=api pod=api-7f9c-crash"}}}}})
	_, err = kc.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "api"},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	must(err)
	jobTmpl := tmpl
	jobTmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	jobTmpl.Labels = nil
	job, err := kc.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "migrate"}, Spec: batchv1.JobSpec{Template: jobTmpl}}, metav1.CreateOptions{})
	must(err)
	start := metav1.Now()
	job.Status = batchv1.JobStatus{Active: 1, StartTime: &start}
	_, err = kc.BatchV1().Jobs(ns).UpdateStatus(ctx, job, metav1.UpdateOptions{})
	must(err)
	// The labels the Job controller puts on its pods.
	jobLabels := map[string]string{"batch.kubernetes.io/job-name": job.Name, "job-name": job.Name, "batch.kubernetes.io/controller-uid": string(job.UID)}
	createPod(t, kc, ns, node, "migrate-x7k2p", jobLabels, ownerRef("batch/v1", "Job", job.Name, job.UID), corev1.RestartPolicyNever, jobTmpl.Spec.Containers,
		corev1.PodStatus{Phase: corev1.PodRunning})
	statefulAndDaemonSets(t, kc, ns, node)
	ingress(t, kc, ns)
}

// createPod creates a Pod as its controller would, with the status its
// kubelet would write.
func createPod(t *testing.T, kc kubernetes.Interface, ns, node, name string, labels map[string]string, owner metav1.OwnerReference,
	restart corev1.RestartPolicy, containers []corev1.Container, st corev1.PodStatus) {
	t.Helper()
	ctx := context.Background()
	p, err := kc.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, OwnerReferences: []metav1.OwnerReference{owner}},
		Spec: corev1.PodSpec{NodeName: node, RestartPolicy: restart, Containers: containers}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status = st
	if _, err := kc.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// readyPod is the status of a pod whose one container runs and is ready.
func readyPod(container string) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}
}

func ownerRef(apiVersion, kind, name string, uid types.UID) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &yes, BlockOwnerDeletion: &yes}
}

// CreateApplication creates, in appNS, the Application of the workload in ns
// on the in-cluster destination.
func CreateApplication(t *testing.T, dyn dynamic.Interface, appNS, ns string) {
	t.Helper()
	CreateApplicationTo(t, dyn, appNS, ns, InClusterServer)
}

// InClusterServer is Argo CD's address of the cluster it runs in.
const InClusterServer = "https://kubernetes.default.svc"

// CreateApplicationTo creates, in appNS, the Application of the workload in
// ns on the destination cluster server.
func CreateApplicationTo(t *testing.T, dyn dynamic.Interface, appNS, ns, server string) {
	t.Helper()
	app := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(Application(ns, server)), &app.Object); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(argocd.Applications).Namespace(appNS).Create(context.Background(), app, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Application is an Application named shop, deploying to the cluster
// server, whose status.resources name the live workload in ns (and a
// ConfigMap that is not there), with a running operation whose PreSync hook
// is the Job migrate.
func Application(ns, server string) string {
	return strings.NewReplacer("NS", ns, "SERVER", server).Replace(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"shop"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/shop.git","path":"prod","targetRevision":"main"},
		  "destination":{"server":"SERVER","namespace":"NS"},"syncPolicy":{"syncOptions":["CreateNamespace=true","ApplyOutOfSyncOnly=false"]}},
		"operation":{"sync":{"revision":"main"},"initiatedBy":{"username":"ci"}},
		"status":{"sync":{"status":"OutOfSync","revision":"1111111111111111111111111111111111111111"},"health":{"status":"Degraded"},
		  "resources":[
		    {"version":"v1","kind":"ConfigMap","namespace":"NS","name":"settings","status":"OutOfSync","health":{"status":"Missing"}},
		    {"version":"v1","kind":"Service","namespace":"NS","name":"api","status":"Synced"},
		    {"group":"apps","version":"v1","kind":"Deployment","namespace":"NS","name":"api","status":"OutOfSync"},
		    {"group":"apps","version":"v1","kind":"StatefulSet","namespace":"NS","name":"db","status":"Synced"},
		    {"group":"apps","version":"v1","kind":"DaemonSet","namespace":"NS","name":"log-agent","status":"Synced"},
		    {"group":"networking.k8s.io","version":"v1","kind":"Ingress","namespace":"NS","name":"api","status":"Synced"}],
		  "operationState":{"phase":"Running","message":"waiting for completion of hook batch/Job/migrate","startedAt":"2026-12-01T12:00:00Z",
		    "operation":{"sync":{"revision":"main"}},
		    "syncResult":{"revision":"1111111111111111111111111111111111111111","resources":[
		      {"group":"batch","version":"v1","kind":"Job","namespace":"NS","name":"migrate","hookType":"PreSync","hookPhase":"Running","message":"job is running","syncPhase":"PreSync"}]}}}}`)
}
