package policy

import (
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/driftdeck/driftdeck/backend/audit/audittest"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/stackops"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

const sha = "1111111111111111111111111111111111111111"

type hookWorld struct {
	t     *testing.T
	kc    *kube.Cluster
	ns    string
	audit string
}

func newHookWorld(t *testing.T) *hookWorld {
	c := testcluster.Shared(t)
	kc, err := kube.NewCluster("test", c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	w := &hookWorld{t: t, kc: kc, ns: c.Namespace(t), audit: filepath.Join(t.TempDir(), "audit.jsonl")}
	// An operation Running for 20 minutes on a PreSync hook that never ends.
	body := fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"migrate","namespace":%q},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/apps.git","path":"migrate","targetRevision":"main"},
			"destination":{"server":"https://kubernetes.default.svc","namespace":"migrate"},"syncPolicy":{"automated":{}}},
		"operation":{"initiatedBy":{"automated":true},"sync":{"revision":%q}},
		"status":{"sync":{"status":"OutOfSync","revision":%q},"health":{"status":"Progressing"},
			"operationState":{"phase":"Running","message":"waiting for completion of hook batch/Job/db-migrate","startedAt":%q,"operation":{"sync":{"revision":%q}}}}}`,
		w.ns, sha, sha, time.Now().Add(-20*time.Minute).UTC().Format(time.RFC3339), sha)
	var o map[string]any
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.Dynamic.Resource(argocd.Applications).Namespace(w.ns).Create(context.Background(), &unstructured.Unstructured{Object: o}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *hookWorld) object() *unstructured.Unstructured {
	o, err := w.kc.Dynamic.Resource(argocd.Applications).Namespace(w.ns).Get(context.Background(), "migrate", metav1.GetOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	return o
}

// units is the model's view of the app now.
func (w *hookWorld) units() []*model.Unit {
	u := argocd.Convert("test", w.object().Object)
	model.Derive(u, time.Now(), model.DefaultThresholds)
	return []*model.Unit{u}
}

func (w *hookWorld) engine(rule Rule) *Engine { return realEngine(w.t, w.kc, w.audit, rule) }

// realEngine writes through the real write path on kc: the executor, and
// the Stack operations on the state backend, with one audit log.
func realEngine(t *testing.T, kc *kube.Cluster, auditPath string, rule Rule) *Engine {
	log, err := audit.Open(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	clusters := func(string) (*kube.Cluster, bool) { return kc, true }
	return &Engine{Rules: []Rule{rule},
		Exec:    &actions.Executor{Cluster: clusters, Audit: log},
		DryExec: &actions.Executor{Cluster: clusters, Audit: log, DryRun: true},
		Ops:     &stackops.Ops{Cluster: clusters, Audit: log},
		DryOps:  &stackops.Ops{Cluster: clusters, Audit: log, DryRun: true}}
}

func (w *hookWorld) auditLines() []audit.Entry {
	w.t.Helper()
	return audittest.Entries(w.t, w.audit)
}

func (w *hookWorld) eventReasons() []string {
	l, err := w.kc.Kube.CoreV1().Events(w.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, e := range l.Items {
		out = append(out, e.Reason+": "+e.Message)
	}
	return out
}

// endOperation does what the application controller does when an
// operation ends: the operation goes, its state says how it ended.
func (w *hookWorld) endOperation(phase, message string) {
	w.t.Helper()
	w.patch(fmt.Sprintf(`[{"op":"remove","path":"/operation"},{"op":"replace","path":"/status/operationState/phase","value":%q},{"op":"replace","path":"/status/operationState/message","value":%q}]`, phase, message))
}

// hangsAgain is the controller starting the requested sync, whose hook
// hangs again: Running on the hook, for 20 minutes by now.
func (w *hookWorld) hangsAgain() {
	w.t.Helper()
	w.patch(fmt.Sprintf(`[{"op":"add","path":"/status/operationState","value":{"phase":"Running","message":"waiting for completion of hook batch/Job/db-migrate","startedAt":%q,"operation":{"sync":{"revision":%q}}}}]`,
		time.Now().Add(-20*time.Minute).UTC().Format(time.RFC3339), sha))
}

func (w *hookWorld) patch(body string) {
	w.t.Helper()
	if _, err := w.kc.Dynamic.Resource(argocd.Applications).Namespace(w.ns).Patch(context.Background(), "migrate", types.JSONPatchType, []byte(body), metav1.PatchOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

func (w *hookWorld) phase() string {
	phase, _, _ := unstructured.NestedString(w.object().Object, "status", "operationState", "phase")
	return phase
}

var hookRule = Rule{Name: "unstick-hooks", When: ArgoHookStuck, After: 10 * time.Minute, MaxAttempts: 3, MaxPerHour: 5}

func TestClusterADryRunPolicyWritesNothing(t *testing.T) {
	w := newHookWorld(t)
	rule := hookRule
	rule.DryRun = true
	before := w.object().GetResourceVersion()
	w.engine(rule).Remediate(context.Background(), w.units())
	if after := w.object().GetResourceVersion(); after != before {
		t.Errorf("a dry-run policy changed the Application (resourceVersion %s -> %s)", before, after)
	}
	if ev := w.eventReasons(); len(ev) != 0 {
		t.Errorf("a dry-run policy recorded Events: %q", ev)
	}
	lines := w.auditLines()
	if len(lines) != 1 || lines[0].Outcome != "dry-run" || lines[0].Action != "terminate" || !strings.HasPrefix(lines[0].Reason, "policy unstick-hooks: ") {
		t.Errorf("audit of a dry-run policy: %+v, want one dry-run terminate naming the policy", lines)
	}
}

func TestClusterAHookStuckPolicyTerminatesThenSyncsAgainNamingThePolicy(t *testing.T) {
	w := newHookWorld(t)
	e := w.engine(hookRule)
	e.Remediate(context.Background(), w.units())
	if phase := w.phase(); phase != "Terminating" {
		t.Fatalf("after the policy the operation is %q, want Terminating", phase)
	}
	w.endOperation("Failed", "Operation terminated")
	e.Remediate(context.Background(), w.units())
	if _, ok, _ := unstructured.NestedMap(w.object().Object, "operation"); !ok {
		t.Fatal("the policy did not sync again after the terminated operation ended")
	}
	var got []string
	for _, l := range w.auditLines() {
		got = append(got, l.Action+" "+l.Outcome+" "+l.Reason)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "terminate done policy unstick-hooks: operation Running on a hook for 20m") ||
		!strings.HasPrefix(got[1], "sync done policy unstick-hooks: ") {
		t.Errorf("audit lines: %q", got)
	}
	ev := strings.Join(w.eventReasons(), "\n")
	if !strings.Contains(ev, "policy unstick-hooks") || strings.Count(ev, "\n") != 1 {
		t.Errorf("Events: want one for the terminate and one for the sync, each naming the policy:\n%s", ev)
	}
	// Nothing left to do: another pass writes nothing.
	e.Remediate(context.Background(), w.units())
	if n := len(w.auditLines()); n != 2 {
		t.Errorf("a pass with nothing to remedy left %d audit lines, want still 2", n)
	}
}
