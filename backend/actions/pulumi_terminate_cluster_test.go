package actions

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/workspace"
)

// A Stack whose Update started at started: its workspace pod, on the fake
// kubelet, last wrote its log at written.
func (e *env) hungStack(kubelet *testcluster.FakeKubelet, name string, started, written time.Time) *corev1.Pod {
	e.t.Helper()
	e.create(pulumiop.Updates, `{"apiVersion":"auto.pulumi.com/v1alpha1","kind":"Update","metadata":{"name":"%s-up-1"},
		"spec":{"workspaceName":%q,"stackName":"org/%s/prod","type":"up"},
		"status":{"startTime":%q,"conditions":[{"type":"Progressing","status":"True","reason":"Progressing","message":"","lastTransitionTime":%q}]}}`,
		name, name, name, started.UTC().Format(time.RFC3339), started.UTC().Format(time.RFC3339))
	e.create(pulumiop.Stacks, `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":%q},
		"spec":{"stack":"org/%s/prod","projectRepo":"https://git.example.com/infra.git"},
		"status":{"currentUpdate":{"name":"%s-up-1","generation":1},"lastUpdate":{"state":"succeeded"},
			"conditions":[{"type":"Ready","status":"False","reason":"ProcessingCompleted","message":"","lastTransitionTime":"2026-11-29T09:00:00Z"}]}}`,
		name, name, name)
	kc := e.c.Kube(e.t)
	pod, err := kc.CoreV1().Pods(e.ns).Create(context.Background(), &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-workspace-0", Labels: map[string]string{workspace.LabelComponent: "workspace", workspace.LabelName: name}},
		Spec:       corev1.PodSpec{NodeName: kubelet.Node, Containers: []corev1.Container{{Name: "pulumi", Image: "pulumi/pulumi:3"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	kubelet.SetLogWrittenAt(e.ns, pod.Name, "pulumi", "Updating (org/"+name+"/prod):\n    aws:rds:Instance db  creating (3s)\n", written)
	return pod
}

// The operator guide's "purge the pod and retry": a hung update whose
// workspace pod has been silent past the threshold is aborted (the pod
// deleted, bound to its uid, and a new run requested, with an Event); one
// whose pod still writes is refused and nothing is written.
func TestClusterAHungUpdateIsAbortedOnlyWhenItsWorkspaceIsSilent(t *testing.T) {
	c := testcluster.Shared(t)
	e := newEnv(t, c, c.Config())
	kubelet := c.FakeKubelet(t)

	e.sub("a silent workspace is deleted and a new run requested", func(t *testing.T, e *env) {
		pod := e.hungStack(kubelet, "db", time.Now().Add(-40*time.Minute), time.Now().Add(-25*time.Minute))
		res := e.mustRun(Request{Kind: Terminate, Key: e.key(model.EnginePulumi, "db"), Reason: "INC-9: update hung on the RDS API"})
		if !strings.Contains(res.Plan.Changes[0], "pod/"+e.ns+"/db-workspace-0: deleted (uid "+string(pod.UID)+"; its log silent for 25m") {
			t.Errorf("the plan does not show the pod's deletion first: %v", res.Plan.Changes)
		}
		_, err := c.Kube(t).CoreV1().Pods(e.ns).Get(context.Background(), pod.Name, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			got, _ := c.Kube(t).CoreV1().Pods(e.ns).Get(context.Background(), pod.Name, metav1.GetOptions{})
			if got == nil || got.DeletionTimestamp == nil {
				t.Fatalf("the silent workspace pod is still there (err %v)", err)
			}
		}
		if tok := e.get(pulumiop.Stacks, "db").GetAnnotations()[pulumiop.AnnotationReconcileRequest]; tok == "" || tok != res.Token {
			t.Errorf("no new run requested: annotation %q, token %q", tok, res.Token)
		}
		if ev := e.events("db"); !contains(ev, "DriftdeckTerminate: "+e.actor+" aborted the hung update db-up-1 of") {
			t.Errorf("events %v", ev)
		}
		if lines := e.auditLines(); len(lines) != 1 || len(lines[0].Also) != 1 || !strings.HasPrefix(lines[0].Also[0], "pod/"+e.ns+"/db-workspace-0: deleted") || lines[0].Outcome != "done" {
			t.Errorf("the audit log does not record the pod's deletion: %+v", lines)
		}
	})

	e.sub("a workspace that still writes is refused, nothing written", func(t *testing.T, e *env) {
		pod := e.hungStack(kubelet, "slow", time.Now().Add(-40*time.Minute), time.Now().Add(-40*time.Second))
		_, err := e.run(Request{Kind: Terminate, Key: e.key(model.EnginePulumi, "slow"), Reason: "looks stuck"})
		if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Reason, "wrote its log 40s ago") || !strings.Contains(r.Reason, "working, not hung") {
			t.Fatalf("got %v", err)
		}
		if _, err := c.Kube(t).CoreV1().Pods(e.ns).Get(context.Background(), pod.Name, metav1.GetOptions{}); err != nil {
			t.Errorf("the talking workspace pod was touched: %v", err)
		}
		if tok := e.get(pulumiop.Stacks, "slow").GetAnnotations()[pulumiop.AnnotationReconcileRequest]; tok != "" {
			t.Errorf("a run was requested: %q", tok)
		}
	})

	e.sub("who may not delete pods is refused before anything is written", func(t *testing.T, admin *env) {
		pod := admin.hungStack(kubelet, "locked-out", time.Now().Add(-40*time.Minute), time.Now().Add(-20*time.Minute))
		cfg := c.UserConfig(t, "stack-operator-"+admin.ns, []rbacv1.PolicyRule{
			{APIGroups: []string{"pulumi.com"}, Resources: []string{"stacks"}, Verbs: []string{"get", "list", "watch", "patch"}},
			{APIGroups: []string{"auto.pulumi.com"}, Resources: []string{"updates"}, Verbs: []string{"get"}},
			{APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create"}},
		}, admin.ns)
		e := newEnv(t, c, cfg)
		e.ns = admin.ns
		_, err := e.run(Request{Kind: Terminate, Key: e.key(model.EnginePulumi, "locked-out"), Reason: "hung"})
		if r := (*Refusal)(nil); !errors.As(err, &r) || !r.Permission || !strings.Contains(r.Reason, "you may not delete pod "+e.ns+"/locked-out-workspace-0") {
			t.Fatalf("got %v", err)
		}
		if _, err := c.Kube(t).CoreV1().Pods(e.ns).Get(context.Background(), pod.Name, metav1.GetOptions{}); err != nil {
			t.Errorf("the pod was deleted: %v", err)
		}
		if tok := e.get(pulumiop.Stacks, "locked-out").GetAnnotations()[pulumiop.AnnotationReconcileRequest]; tok != "" {
			t.Errorf("a run was requested: %q", tok)
		}
	})

	e.sub("an update within its time is not hung, whatever its pod", func(t *testing.T, e *env) {
		e.hungStack(kubelet, "young", time.Now().Add(-3*time.Minute), time.Now().Add(-3*time.Minute))
		_, err := e.run(Request{Kind: Terminate, Key: e.key(model.EnginePulumi, "young"), Reason: "impatient"})
		if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Reason, "has run for 3m") {
			t.Fatalf("got %v", err)
		}
	})

	e.sub("a plan shown while silent is refused once the pod talks again", func(t *testing.T, e *env) {
		pod := e.hungStack(kubelet, "late", time.Now().Add(-40*time.Minute), time.Now().Add(-30*time.Minute))
		p := e.planned(Request{Kind: Terminate, Key: e.key(model.EnginePulumi, "late"), Reason: "hung"})
		kubelet.SetLogWrittenAt(e.ns, pod.Name, "pulumi", "    aws:rds:Instance db  created (1812s)\n", time.Now())
		_, err := e.send(p)
		if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Reason, "after the plan was made") {
			t.Fatalf("got %v", err)
		}
		if _, err := c.Kube(t).CoreV1().Pods(e.ns).Get(context.Background(), pod.Name, metav1.GetOptions{}); err != nil {
			t.Errorf("the pod that started to talk was deleted: %v", err)
		}
	})
}
