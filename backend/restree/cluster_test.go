package restree

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testcluster"
)

// liveWorkload creates, in ns, what the Deployment, ReplicaSet and Job
// controllers would have made (envtest runs no controllers): a Deployment
// rolling out, its ReplicaSet, one ready Pod and one crash-looping, a
// Service, and a hook Job with its running Pod, each with the
// ownerReferences and the status the controllers and kubelet write.
func liveWorkload(t *testing.T, kc kubernetes.Interface, ns string) {
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
		ObjectMeta: metav1.ObjectMeta{Name: "api-7f9c", Labels: labels, OwnerReferences: []metav1.OwnerReference{controllerRef("apps/v1", "Deployment", d.Name, d.UID)}},
		Spec:       appsv1.ReplicaSetSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl}}, metav1.CreateOptions{})
	must(err)
	rs.Status = appsv1.ReplicaSetStatus{ObservedGeneration: rs.Generation, Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, FullyLabeledReplicas: 2}
	_, err = kc.AppsV1().ReplicaSets(ns).UpdateStatus(ctx, rs, metav1.UpdateOptions{})
	must(err)
	pod := func(name string, owner metav1.OwnerReference, restart corev1.RestartPolicy, st corev1.PodStatus) {
		t.Helper()
		p, err := kc.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, OwnerReferences: []metav1.OwnerReference{owner}},
			Spec: corev1.PodSpec{RestartPolicy: restart, Containers: tmpl.Spec.Containers}}, metav1.CreateOptions{})
		must(err)
		p.Status = st
		_, err = kc.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		must(err)
	}
	rsRef := controllerRef("apps/v1", "ReplicaSet", rs.Name, rs.UID)
	pod("api-7f9c-ready", rsRef, corev1.RestartPolicyAlways, corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
		ContainerStatuses: []corev1.ContainerStatus{{Name: "api", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}})
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
	pod("migrate-x7k2p", controllerRef("batch/v1", "Job", job.Name, job.UID), corev1.RestartPolicyNever, corev1.PodStatus{Phase: corev1.PodRunning})
}

func controllerRef(apiVersion, kind, name string, uid types.UID) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &yes, BlockOwnerDeletion: &yes}
}

func TestClusterResourceTreeOfRealObjectsAndASyncOfTwoOfThem(t *testing.T) {
	c := testcluster.Shared(t)
	kc, err := kube.NewCluster("test", c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	appNS, ns := c.Namespace(t), c.Namespace(t)
	liveWorkload(t, kc.Kube, ns)
	app := &unstructured.Unstructured{}
	text := strings.ReplaceAll(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"shop"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/shop.git","path":"prod","targetRevision":"main"},
		  "destination":{"server":"https://kubernetes.default.svc","namespace":"NS"},"syncPolicy":{"syncOptions":["CreateNamespace=true","ApplyOutOfSyncOnly=false"]}},
		"operation":{"sync":{"revision":"main"},"initiatedBy":{"username":"ci"}},
		"status":{"sync":{"status":"OutOfSync","revision":"1111111111111111111111111111111111111111"},"health":{"status":"Degraded"},
		  "resources":[
		    {"version":"v1","kind":"ConfigMap","namespace":"NS","name":"settings","status":"OutOfSync","health":{"status":"Missing"}},
		    {"version":"v1","kind":"Service","namespace":"NS","name":"api","status":"Synced"},
		    {"group":"apps","version":"v1","kind":"Deployment","namespace":"NS","name":"api","status":"OutOfSync"}],
		  "operationState":{"phase":"Running","message":"waiting for completion of hook batch/Job/migrate","startedAt":"2026-12-01T12:00:00Z",
		    "operation":{"sync":{"revision":"main"}},
		    "syncResult":{"revision":"1111111111111111111111111111111111111111","resources":[
		      {"group":"batch","version":"v1","kind":"Job","namespace":"NS","name":"migrate","hookType":"PreSync","hookPhase":"Running","message":"job is running","syncPhase":"PreSync"}]}}}}`, "NS", ns)
	if err := json.Unmarshal([]byte(text), &app.Object); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := kc.Dynamic.Resource(argocd.Applications).Namespace(appNS).Create(ctx, app, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	clusters := func(string) (*kube.Cluster, bool) { return kc, true }
	key := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: appNS, Name: "shop"}
	tr, err := (&Reader{Cluster: clusters}).Read(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	want := `ConfigMap/settings Missing
Service/api Healthy
Deployment/api Progressing
  ReplicaSet/api-7f9c Progressing
    Pod/api-7f9c-crash Degraded
    Pod/api-7f9c-ready Healthy
Job/migrate Progressing
  Pod/migrate-x7k2p Progressing
`
	if got := shape(tr); got != want {
		t.Fatalf("tree read from the cluster:\n%s\nwant:\n%s\nnotes: %q", got, want, tr.Notes)
	}
	if !tr.LiveRead || len(tr.Notes) != 0 || !strings.HasPrefix(tr.Destination, "test (https://kubernetes.default.svc") {
		t.Errorf("live %v, destination %q, notes %q", tr.LiveRead, tr.Destination, tr.Notes)
	}
	crash := tr.Find(Ref{Kind: "Pod", Namespace: ns, Name: "api-7f9c-crash"})
	if !strings.Contains(crash.Reason, "CrashLoopBackOff") || !strings.Contains(crash.Reason, "back-off 5m0s restarting failed container=api") {
		t.Errorf("crashing pod's reason: %q", crash.Reason)
	}
	d := tr.Find(Ref{Group: "apps", Kind: "Deployment", Namespace: ns, Name: "api"})
	if d.Sync != "OutOfSync" || d.Reason != "Waiting for rollout to finish: 1 of 2 updated replicas are available..." {
		t.Errorf("deployment: sync %q, reason %q", d.Sync, d.Reason)
	}
	if h := tr.Hooks[0]; h.Hook != "PreSync" || h.HookPhase != "Running" || tr.Operation != "Running" {
		t.Errorf("hook %+v, operation %q", h, tr.Operation)
	}

	// The operation ends; then sync the Deployment and the ConfigMap only.
	finished := `{"operation":null,"status":{"operationState":{"phase":"Succeeded","message":"successfully synced","finishedAt":"2026-12-01T12:03:00Z"}}}`
	if _, err := kc.Dynamic.Resource(argocd.Applications).Namespace(appNS).Patch(ctx, "shop", types.MergePatchType, []byte(finished), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := SyncResources([]*Node{d, crash}); err == nil || !strings.Contains(err.Error(), "not a resource of the Application") {
		t.Errorf("a Pod cannot be synced on its own: %v", err)
	}
	resources, err := SyncResources([]*Node{d, tr.Find(Ref{Kind: "ConfigMap", Namespace: ns, Name: "settings"})})
	if err != nil {
		t.Fatal(err)
	}
	log, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	exec := &actions.Executor{Cluster: clusters, Audit: log}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := exec.Execute(wctx, actions.Request{Kind: actions.Sync, Key: key, Reason: "INC-7: roll api and its settings", Prune: true,
		Resources: resources, SyncChoices: actions.SyncChoices{ApplyOutOfSyncOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := kc.Dynamic.Resource(argocd.Applications).Namespace(appNS).Get(ctx, "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	op, _, _ := unstructured.NestedMap(got.Object, "operation")
	b, _ := json.Marshal(op)
	wantOp := `{"info":[{"name":"Reason","value":"INC-7: roll api and its settings"}],"initiatedBy":{"automated":false,"username":"` + res.Actor + `"},` +
		`"sync":{"prune":true,"resources":[{"group":"apps","kind":"Deployment","name":"api","namespace":"` + ns + `"},{"group":"","kind":"ConfigMap","name":"settings","namespace":"` + ns + `"}],` +
		`"revision":"","syncOptions":["CreateNamespace=true","ApplyOutOfSyncOnly=true"],"syncStrategy":{"hook":{}}}}`
	if string(b) != wantOp {
		t.Fatalf("operation read back from the apiserver\n got %s\nwant %s", b, wantOp)
	}
	if _, has, _ := unstructured.NestedMap(got.Object, "status", "operationState"); has {
		t.Error("the finished operationState must be cleared with the new operation")
	}
}

func TestClusterForceAndArgoDryRunAreWrittenAsArgoCDReadsThem(t *testing.T) {
	c := testcluster.Shared(t)
	kc, err := kube.NewCluster("test", c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	ns := c.Namespace(t)
	app := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"shop"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/shop.git","path":"prod","targetRevision":"main"},
		  "destination":{"server":"https://kubernetes.default.svc","namespace":"shop"}},
		"status":{"sync":{"status":"OutOfSync"}}}`), &app.Object); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := kc.Dynamic.Resource(argocd.Applications).Namespace(ns).Create(ctx, app, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	log, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	exec := &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }, Audit: log}
	key := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: ns, Name: "shop"}
	res, err := exec.Execute(ctx, actions.Request{Kind: actions.Sync, Key: key, Reason: "replace the immutable selector",
		SyncChoices: actions.SyncChoices{Force: true, SyncDryRun: true}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Plan.Summary, "forcing") || !strings.Contains(res.Plan.Summary, "dry run") {
		t.Errorf("the plan must say what it chose: %q", res.Plan.Summary)
	}
	got, err := kc.Dynamic.Resource(argocd.Applications).Namespace(ns).Get(ctx, "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sync, _, _ := unstructured.NestedMap(got.Object, "operation", "sync")
	b, _ := json.Marshal(sync)
	if want := `{"dryRun":true,"prune":false,"revision":"","syncStrategy":{"hook":{"force":true}}}`; string(b) != want {
		t.Fatalf("operation.sync\n got %s\nwant %s", b, want)
	}
}
