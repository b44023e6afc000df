package logs

import (
	"context"
	"errors"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

func create(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, obj map[string]any) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: obj}
	out, err := dyn.Resource(gvr).Namespace(u.GetNamespace()).Create(context.Background(), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return out
}

// A Stack's log is its workspace pod's, found as the Pulumi operator v2
// names and labels it, through the Workspace its current Update names; the
// container is the agent's ("pulumi"), which logs the update's output.
func TestClusterLogsOfAStackAreItsWorkspacePod(t *testing.T) {
	c := testcluster.Shared(t)
	f, s := newLogFixture(t, c)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	stack := create(t, dyn, pulumiop.Stacks, map[string]any{
		"apiVersion": "pulumi.com/v1", "kind": "Stack",
		"metadata": map[string]any{"namespace": f.ns, "name": "network"},
		"spec":     map[string]any{"stack": "acme/network/prod", "projectRepo": "https://github.com/acme/infra.git", "branch": "main"},
	})
	k := model.Key{Context: "test", Engine: model.EnginePulumi, Namespace: f.ns, Name: "network"}
	if _, err := s.Targets(context.Background(), k); err == nil || !strings.Contains(err.Error(), "no pod") {
		t.Fatalf("a Stack whose Workspace has no pod yet: %v", err)
	}
	stack.Object["status"] = map[string]any{"currentUpdate": map[string]any{"name": "network-1f2e", "generation": int64(1)}}
	if _, err := dyn.Resource(pulumiop.Stacks).Namespace(f.ns).UpdateStatus(context.Background(), stack, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	create(t, dyn, pulumiop.Updates, map[string]any{
		"apiVersion": "auto.pulumi.com/v1alpha1", "kind": "Update",
		"metadata": map[string]any{"namespace": f.ns, "name": "network-1f2e"},
		"spec":     map[string]any{"workspaceName": "network", "stackName": "acme/network/prod", "type": "up"},
	})
	labels := func(ws string) map[string]string {
		return map[string]string{"auto.pulumi.com/component": "workspace", "auto.pulumi.com/workspace-name": ws}
	}
	other := podWithSecret(f.ns, "network-old-workspace-0", f.node, labels("network-old"), "pulumi")
	f.createPod(t, c, other)
	ws := podWithSecret(f.ns, "network-workspace-0", f.node, labels("network"), "pulumi")
	ws.Spec.InitContainers = append(ws.Spec.InitContainers, ws.Spec.Containers[0])
	ws.Spec.InitContainers[0].Name = "bootstrap"
	ref := f.createPod(t, c, ws)

	ts, err := s.Targets(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].Pod != ref || ts[0].Container != "pulumi" || !strings.Contains(ts[0].Why, "Update network-1f2e") {
		t.Fatalf("targets %+v, want pod %s container pulumi for Update network-1f2e", ts, ref.Name)
	}
	if strings.Join(ts[0].Containers, ",") != "bootstrap,pulumi" {
		t.Errorf("containers %v", ts[0].Containers)
	}
	more := make(chan string)
	f.kc.SetLog(f.ns, ref.Name, "pulumi", "Updating (acme/network/prod)\n", more)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lines, _ := collect(ctx, s, ref, Options{Container: ts[0].Container, Follow: true, Tail: -1})
	if l := next(t, lines); l != "Updating (acme/network/prod)" {
		t.Fatalf("first line %q", l)
	}
	more <- " +  aws:ec2:Vpc main creating (3s)"
	if l := next(t, lines); !strings.Contains(l, "aws:ec2:Vpc main creating") {
		t.Fatalf("the running update's progress: %q", l)
	}
}

// A Terraform's log is its runner pod, <name>-tf-runner, as tofu-controller
// names it; the container is the runner's; with no run going on, the
// message says that the pod comes and goes with a run.
func TestClusterLogsOfATerraformAreItsRunnerPod(t *testing.T) {
	c := testcluster.Shared(t)
	f, s := newLogFixture(t, c)
	k := model.Key{Context: "test", Engine: model.EngineTerraform, Namespace: f.ns, Name: "vpc"}
	if _, err := s.Targets(context.Background(), k); !errors.Is(err, ErrNoPod) || !strings.Contains(err.Error(), "runner pod "+f.ns+"/vpc-tf-runner is not there") {
		t.Fatalf("a Terraform with no run going on: %v", err)
	}
	f.createPod(t, c, podWithSecret(f.ns, "rds-tf-runner", f.node, nil, "tf-runner"))
	ref := f.createPod(t, c, podWithSecret(f.ns, "vpc-tf-runner", f.node, map[string]string{"app.kubernetes.io/created-by": "tf-controller"}, "tf-runner"))
	ts, err := s.Targets(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].Pod != ref || ts[0].Container != "tf-runner" || !strings.Contains(ts[0].Why, "runner pod") {
		t.Fatalf("targets %+v, want pod %s container tf-runner", ts, ref.Name)
	}
	f.kc.SetLog(f.ns, ref.Name, "tf-runner", "Terraform will perform the following actions:\n  # aws_vpc.main will be created\n", nil)
	lines, _ := collect(context.Background(), s, ref, Options{Container: ts[0].Container, Tail: -1})
	if l := next(t, lines); l != "Terraform will perform the following actions:" {
		t.Fatalf("first line %q", l)
	}
	if l := next(t, lines); !strings.Contains(l, "aws_vpc.main will be created") {
		t.Fatalf("second line %q", l)
	}
}

// An Application's log is the pod of the hook Job its stuck operation runs,
// found by the Job controller's job-name label.
func TestClusterLogsOfAHungHookAreItsJobPod(t *testing.T) {
	c := testcluster.Shared(t)
	f, s := newLogFixture(t, c)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	kc := c.Kube(t)
	job, err := kc.BatchV1().Jobs(f.ns).Create(context.Background(), &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "search-reindex"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    podWithSecret(f.ns, "", "", nil, "reindex").Spec.Containers,
		}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	create(t, dyn, argocd.Applications, map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"namespace": f.ns, "name": "search"},
		"spec": map[string]any{"project": "default", "destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": f.ns},
			"source": map[string]any{"repoURL": "https://github.com/acme/search.git", "path": "deploy"}},
		"status": map[string]any{"operationState": map[string]any{
			"phase": "Running", "message": "waiting for completion of hook batch/Job/search-reindex", "startedAt": "2026-01-01T10:00:00Z",
			"operation": map[string]any{"sync": map[string]any{"revision": "main"}},
			"syncResult": map[string]any{"revision": "main", "resources": []any{
				map[string]any{"group": "apps", "version": "v1", "kind": "Deployment", "namespace": f.ns, "name": "search", "status": "Synced"},
				map[string]any{"group": "batch", "version": "v1", "kind": "Job", "namespace": f.ns, "name": "search-reindex",
					"hookType": "PreSync", "hookPhase": "Running", "message": "job is running"},
			}},
		}},
	})
	k := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: f.ns, Name: "search"}
	if _, err := s.Targets(context.Background(), k); err == nil || !strings.Contains(err.Error(), "no pod") {
		t.Fatalf("a hook Job without pods yet: %v", err)
	}
	owner := metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID}
	pod := podWithSecret(f.ns, "search-reindex-x7k2p", f.node, map[string]string{"batch.kubernetes.io/job-name": job.Name, "job-name": job.Name}, "reindex")
	pod.OwnerReferences = []metav1.OwnerReference{owner}
	ref := f.createPod(t, c, pod)
	f.createPod(t, c, podWithSecret(f.ns, "search-7d9f-abcde", f.node, map[string]string{"app": "search"}, "search"))

	ts, err := s.Targets(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].Pod != ref || ts[0].Container != "reindex" || !strings.Contains(ts[0].Why, "PreSync hook Job search-reindex (Running)") {
		t.Fatalf("targets %+v, want the hook Job's pod %s", ts, ref.Name)
	}
	f.kc.SetLog(f.ns, ref.Name, "reindex", "reindexing shard 3 of 12\nwaiting for elasticsearch: connection refused\n", nil)
	lines, done := collect(context.Background(), s, ref, Options{Container: ts[0].Container, Tail: -1})
	if got := texts(all(t, lines, done)); !strings.Contains(got, "waiting for elasticsearch") {
		t.Fatalf("the stuck hook's log: %q", got)
	}
	res, err := s.Resource(context.Background(), k, "job/search-reindex")
	if err != nil || len(res) != 1 || res[0].Pod != ref {
		t.Fatalf("--resource job/search-reindex: %+v, %v", res, err)
	}

	// The same hook on another destination cluster is not this Job.
	app, err := dyn.Resource(argocd.Applications).Namespace(f.ns).Get(context.Background(), "search", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	app.Object["spec"].(map[string]any)["destination"] = map[string]any{"server": "https://prod-eu-1.example.com", "namespace": f.ns}
	if _, err := dyn.Resource(argocd.Applications).Namespace(f.ns).Update(context.Background(), app, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if ts, err := s.Targets(context.Background(), k); !errors.Is(err, ErrUnreachableDestination) || !strings.Contains(err.Error(), "https://prod-eu-1.example.com") {
		t.Fatalf("a remote destination's hook must not find this cluster's pod: %+v, %v", ts, err)
	}
	// Nor is a pod or Job named with --resource: refused, naming the
	// destination, unless a context reaches it; then read there.
	for _, ref := range []string{"pod/search-reindex-x7k2p", "job/search-reindex", "pod/" + f.ns + "/search-reindex-x7k2p"} {
		if ts, err := s.Resource(context.Background(), k, ref); !errors.Is(err, ErrUnreachableDestination) || !strings.Contains(err.Error(), "deploys to https://prod-eu-1.example.com") {
			t.Errorf("--resource %s of an app on another cluster must be refused naming it: %+v, %v", ref, ts, err)
		}
	}
	prod, err := kube.NewCluster("prod-eu-1", c.Config(), f.ns)
	if err != nil {
		t.Fatal(err)
	}
	own := s.Cluster
	s.Cluster = func(name string) (*kube.Cluster, bool) {
		if name == "prod-eu-1" {
			return prod, true
		}
		return own(name)
	}
	s.Destination = func(app map[string]any, _ *kube.Cluster) (*kube.Cluster, string) {
		if objread.New(app).Str("spec", "destination", "server") == "https://prod-eu-1.example.com" {
			return prod, "prod-eu-1"
		}
		return nil, ""
	}
	for _, ref := range []string{"pod/search-reindex-x7k2p", "job/search-reindex"} {
		res, err := s.Resource(context.Background(), k, ref)
		if err != nil || len(res) != 1 || res[0].Pod != (PodRef{Context: "prod-eu-1", Namespace: f.ns, Name: "search-reindex-x7k2p"}) {
			t.Errorf("--resource %s on the mapped destination: %+v, %v", ref, res, err)
		}
	}
	// The running operation's hook is found there too.
	if ts, err := s.Targets(context.Background(), k); err != nil || len(ts) != 1 || ts[0].Pod != (PodRef{Context: "prod-eu-1", Namespace: f.ns, Name: "search-reindex-x7k2p"}) {
		t.Errorf("the hook's pod on the mapped destination: %+v, %v", ts, err)
	}
}
