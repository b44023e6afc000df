package livetree

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/restree"
	"github.com/driftdeck/driftdeck/backend/restree/restreetest"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

func TestClusterResourceTreeOfRealObjectsAndASyncOfTwoOfThem(t *testing.T) {
	c := testcluster.Shared(t)
	kc, err := kube.NewCluster("test", c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	appNS, ns := c.Namespace(t), c.Namespace(t)
	restreetest.LiveWorkload(t, kc.Kube, ns, "")
	restreetest.CreateApplication(t, kc.Dynamic, appNS, ns)
	ctx := context.Background()
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
StatefulSet/db Healthy
  Pod/db-0 Healthy
DaemonSet/log-agent Progressing
  Pod/log-agent-q8x2z Healthy
  Pod/log-agent-w4n7c Degraded
Ingress/api Healthy
Job/migrate Progressing
  Pod/migrate-x7k2p Progressing
`
	if got := outline(tr); got != want {
		t.Fatalf("tree read from the cluster:\n%s\nwant:\n%s\nnotes: %q", got, want, tr.Notes)
	}
	if !tr.LiveRead || len(tr.Notes) != 0 || !strings.HasPrefix(tr.Destination, "test (https://kubernetes.default.svc") {
		t.Errorf("live %v, destination %q, notes %q", tr.LiveRead, tr.Destination, tr.Notes)
	}
	crash := tr.Find(restree.Ref{Kind: "Pod", Namespace: ns, Name: "api-7f9c-crash"})
	if !strings.Contains(crash.Reason, "CrashLoopBackOff") || !strings.Contains(crash.Reason, "back-off 5m0s restarting failed container=api") {
		t.Errorf("crashing pod's reason: %q", crash.Reason)
	}
	d := tr.Find(restree.Ref{Group: "apps", Kind: "Deployment", Namespace: ns, Name: "api"})
	if d.Sync != "OutOfSync" || d.Reason != "Waiting for rollout to finish: 1 of 2 updated replicas are available..." {
		t.Errorf("deployment: sync %q, reason %q", d.Sync, d.Reason)
	}
	// The apiserver defaults a StatefulSet's rollingUpdate.partition to 0,
	// so Argo CD's rule reports a partitioned roll out, as on any real cluster.
	for ref, reason := range map[restree.Ref]string{
		{Group: "apps", Kind: "StatefulSet", Namespace: ns, Name: "db"}:           "partitioned roll out complete: 1 new pods have been updated...",
		{Group: "apps", Kind: "DaemonSet", Namespace: ns, Name: "log-agent"}:      `Waiting for daemon set "log-agent" rollout to finish: 1 of 2 updated pods are available...`,
		{Kind: "Pod", Namespace: ns, Name: "log-agent-w4n7c"}:                     `container "agent": ImagePullBackOff: Back-off pulling image "registry.example/log-agent:2.1"`,
		{Group: "networking.k8s.io", Kind: "Ingress", Namespace: ns, Name: "api"}: "",
	} {
		n := tr.Find(ref)
		if n == nil {
			t.Errorf("%v not in the tree", ref)
			continue
		}
		if n.Reason != reason || (ref.Kind != "Pod" && n.Sync != "Synced") {
			t.Errorf("%v: reason %q, sync %q; want reason %q", ref, n.Reason, n.Sync, reason)
		}
	}
	if h := tr.Hooks[0]; h.Hook != "PreSync" || h.HookPhase != "Running" || tr.Operation != "Running" {
		t.Errorf("hook %+v, operation %q", h, tr.Operation)
	}

	// The operation ends; then sync the Deployment and the ConfigMap only.
	finished := `{"operation":null,"status":{"operationState":{"phase":"Succeeded","message":"successfully synced","finishedAt":"2026-12-01T12:03:00Z"}}}`
	if _, err := kc.Dynamic.Resource(argocd.Applications).Namespace(appNS).Patch(ctx, "shop", types.MergePatchType, []byte(finished), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := actions.SyncResources([]*restree.Node{d, crash}); err == nil || !strings.Contains(err.Error(), "not a resource of the Application") {
		t.Errorf("a Pod cannot be synced on its own: %v", err)
	}
	resources, err := actions.SyncResources([]*restree.Node{d, tr.Find(restree.Ref{Kind: "ConfigMap", Namespace: ns, Name: "settings"})})
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

// outline is the tree as "Kind/name Health" lines, indented by depth.
func outline(tr *restree.Tree) string {
	var lines []string
	for _, r := range tr.Rows() {
		lines = append(lines, strings.Repeat("  ", r.Depth)+r.Node.Kind+"/"+r.Node.Name+" "+string(r.Node.Health)+"\n")
	}
	return strings.Join(lines, "")
}
