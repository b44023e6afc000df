package stackops

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// stateEnv is a namespace of the package's real control plane holding a
// Stack whose state is a real file backend written by the real pulumi CLI.
type stateEnv struct {
	t      *testing.T
	c      *testcluster.Cluster
	ns     string
	key    model.Key
	target pulumirun.Target
	bucket string // the file backend's directory
}

func newStateEnv(t *testing.T) *stateEnv {
	pulumiruntest.Helper(t)
	c := testcluster.Shared(t)
	e := &stateEnv{t: t, c: c, ns: c.Namespace(t)}
	e.target = pulumiruntest.FileTarget(t, "stash", "dev")
	e.target.Inline = "stashes"
	e.target.Config = map[string]pulumirun.ConfigValue{"first": {Value: "a"}, "second": {Value: "b"}}
	e.bucket = strings.TrimPrefix(e.target.BackendURL, "file://")
	for k, v := range e.target.Env {
		t.Setenv(k, v)
	}
	e.up()
	e.key = model.Key{Context: "test", Engine: model.EnginePulumi, Namespace: e.ns, Name: "stash"}
	o := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pulumi.com/v1", "kind": "Stack",
		"metadata": map[string]any{"name": "stash", "namespace": e.ns},
		"spec":     map[string]any{"stack": "organization/stash/dev", "backend": e.target.BackendURL, "projectRepo": "https://git.example.com/stash.git"},
	}}
	kc := e.cluster(c.Config())
	if _, err := kc.Dynamic.Resource(pulumiop.Stacks).Namespace(e.ns).Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return e
}

// up applies the program as configured now: preview, then the plan.
func (e *stateEnv) up() {
	e.t.Helper()
	plan := filepath.Join(e.t.TempDir(), "plan.json")
	if _, err := pulumirun.Preview(context.Background(), e.target, pulumirun.PreviewOptions{PlanPath: plan}); err != nil {
		e.t.Fatal(err)
	}
	if _, err := pulumirun.ApplyPlan(context.Background(), e.target, plan, nil); err != nil {
		e.t.Fatal(err)
	}
}

func (e *stateEnv) cluster(cfg *rest.Config) *kube.Cluster {
	kc, err := kube.NewCluster("test", cfg, "default")
	if err != nil {
		e.t.Fatal(err)
	}
	return kc
}

// ops are the Stack operations as the given user, with their own audit log.
func (e *stateEnv) ops(cfg *rest.Config) (*Ops, string) {
	path := filepath.Join(e.t.TempDir(), "audit.jsonl")
	log, err := audit.Open(path)
	if err != nil {
		e.t.Fatal(err)
	}
	kc := e.cluster(cfg)
	return &Ops{
		Cluster:  func(string) (*kube.Cluster, bool) { return kc, true },
		Programs: []config.StackProgram{{Unit: e.key.Ref(), Dir: e.t.TempDir()}},
		Audit:    log,
	}, path
}

// leaveDeadRun leaves the stack as a killed `pulumi up` of this host does:
// its lock file (pulumi's format, the pid of a process that has exited) and
// a pending create in the checkpoint.
func (e *stateEnv) leaveDeadRun() (lockID, pendingURN string) {
	e.t.Helper()
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		e.t.Fatal(err)
	}
	host, _ := os.Hostname()
	lock, _ := json.Marshal(map[string]any{"pid": done.Process.Pid, "username": "ci", "hostname": host, "timestamp": time.Now().Add(-time.Hour)})
	lockID = "0b7e4d52-1c2a-4f0e-9d3b-5a6c7e8f9a01"
	dir := filepath.Join(e.bucket, ".pulumi", "locks", "organization", "stash", "dev")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, lockID+".json"), lock, 0o600); err != nil {
		e.t.Fatal(err)
	}
	path := filepath.Join(e.bucket, ".pulumi", "stacks", "stash", "dev.json")
	var cp map[string]any
	raw, err := os.ReadFile(path)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &cp); err != nil {
		e.t.Fatal(err)
	}
	latest := cp["checkpoint"].(map[string]any)["latest"].(map[string]any)
	resources := latest["resources"].([]any)
	last := resources[len(resources)-1].(map[string]any)
	pendingURN = strings.Replace(last["urn"].(string), "::secret", "::half-created", 1)
	pending := map[string]any{}
	for k, v := range last {
		pending[k] = v
	}
	pending["urn"] = pendingURN
	latest["pending_operations"] = []any{map[string]any{"resource": pending, "type": "creating"}}
	out, _ := json.Marshal(cp)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		e.t.Fatal(err)
	}
	return lockID, pendingURN
}

// snapshot is every file of the state bucket, byte for byte.
func (e *stateEnv) snapshot() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(e.bucket, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, e.bucket)] = string(b)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

func (e *stateEnv) stackVersion() string {
	e.t.Helper()
	o, err := e.cluster(e.c.Config()).Dynamic.Resource(pulumiop.Stacks).Namespace(e.ns).Get(context.Background(), "stash", metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return o.GetResourceVersion()
}

func (e *stateEnv) events() []string {
	e.t.Helper()
	list, err := e.c.Kube(e.t).CoreV1().Events(e.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, ev := range list.Items {
		out = append(out, ev.Reason+": "+ev.Message)
	}
	return out
}

func sameFiles(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s was removed", p)
		} else if a != b {
			t.Errorf("%s was rewritten", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was written", p)
		}
	}
}

func TestClusterDryRunUnlockWritesNothingAndSaysWhatItWould(t *testing.T) {
	e := newStateEnv(t)
	lockID, pendingURN := e.leaveDeadRun()
	ops, auditPath := e.ops(e.c.Config())
	ctx := context.Background()

	ops.DryRun = true
	before, version := e.snapshot(), e.stackVersion()
	plan, err := ops.PlanUnstick(ctx, e.key, true, false)
	if err != nil {
		t.Fatal(err)
	}
	done, err := ops.Apply(ctx, plan, "INC-3: the CI runner died")
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, before, e.snapshot())
	if e.stackVersion() != version {
		t.Error("a dry run changed the Stack")
	}
	did := strings.Join(done.Did, "\n")
	if !done.DryRun || !strings.Contains(did, lockID) || !strings.Contains(did, pendingURN) {
		t.Errorf("a dry run must say exactly what it would write (the lock %s, the pending %s): %+v", lockID, pendingURN, done)
	}
	if ev := e.events(); len(ev) != 0 {
		t.Errorf("a dry run left events: %v", ev)
	}
	if lines := readAudit(t, auditPath); len(lines) != 1 || lines[0].Outcome != "dry-run" || !lines[0].DryRun || !strings.Contains(string(lines[0].Patch), lockID) {
		t.Fatalf("audit %+v", lines)
	}

	// The same without dry run writes it.
	ops.DryRun = false
	plan, err = ops.PlanUnstick(ctx, e.key, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if done, err = ops.Apply(ctx, plan, "INC-3: the CI runner died"); err != nil || done.DryRun {
		t.Fatalf("unlock: %+v, %v", done, err)
	}
	if did := strings.Join(done.Did, "\n"); !strings.Contains(did, lockID) || !strings.Contains(did, pendingURN) {
		t.Errorf("the unlock must say what it wrote: %s", did)
	}
	info, _, err := ops.State(ctx, e.key)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Locks) != 0 || len(info.Pending) != 0 {
		t.Fatalf("after the unlock: %+v", info)
	}
	if ev := e.events(); len(ev) != 1 || !strings.Contains(ev[0], "DriftdeckUnlock") {
		t.Errorf("events %v", ev)
	}
}

func TestClusterDryRunApplyPlanWritesNothingAndSaysWhatItWould(t *testing.T) {
	e := newStateEnv(t)
	ops, auditPath := e.ops(e.c.Config())
	ctx := context.Background()
	loc, err := ops.Locate(ctx, e.key)
	if err != nil {
		t.Fatal(err)
	}
	e.target.Config["second"] = pulumirun.ConfigValue{Value: "c"}
	planPath := filepath.Join(t.TempDir(), "plan.json")
	preview, err := pulumirun.Preview(ctx, e.target, pulumirun.PreviewOptions{PlanPath: planPath})
	if err != nil {
		t.Fatal(err)
	}
	reviewed := &Reviewed{Loc: loc, Result: preview, PlanPath: planPath, target: e.target}

	ops.DryRun = true
	before, version := e.snapshot(), e.stackVersion()
	ran := false
	res, done, err := ops.Approve(ctx, reviewed, "CHG-12 reviewed", func(pulumirun.Event) { ran = true })
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, before, e.snapshot())
	if e.stackVersion() != version || ran || len(res.Steps) != 0 {
		t.Errorf("a dry run applied something: stack %s→%s, events streamed %v, steps %d", version, e.stackVersion(), ran, len(res.Steps))
	}
	did := strings.Join(done.Did, "\n")
	if !done.DryRun || !strings.Contains(did, "pulumi up of stack organization/stash/dev") || !strings.Contains(did, "::second") || !strings.Contains(did, "::secret") || strings.Contains(did, "::first") {
		t.Errorf("a dry run must list the steps it would apply (second and secret change, first does not):\n%s", did)
	}
	if lines := readAudit(t, auditPath); len(lines) != 1 || lines[0].Outcome != "dry-run" || lines[0].Action != "apply-plan" {
		t.Fatalf("audit %+v", lines)
	}

	ops.DryRun = false
	if _, done, err = ops.Approve(ctx, reviewed, "CHG-12 reviewed", nil); err != nil || done.DryRun {
		t.Fatalf("apply: %+v %v", done, err)
	}
	after := e.snapshot()
	if after["/.pulumi/stacks/stash/dev.json"] == before["/.pulumi/stacks/stash/dev.json"] {
		t.Error("the apply did not write the checkpoint: the dry-run check above proves nothing")
	}
	if ev := e.events(); len(ev) != 1 || !strings.Contains(ev[0], "DriftdeckApplyPlan") {
		t.Errorf("events %v", ev)
	}
}

func TestClusterStateWritesAreRefusedLikeEveryWrite(t *testing.T) {
	e := newStateEnv(t)
	e.leaveDeadRun()
	ctx := context.Background()
	before := e.snapshot()

	ops, auditPath := e.ops(e.c.Config())
	plan, err := ops.PlanUnstick(ctx, e.key, true, false)
	if err != nil {
		t.Fatal(err)
	}
	var r *actions.Refusal
	if _, err := ops.Apply(ctx, plan, ""); !errors.As(err, &r) || !strings.Contains(r.Reason, "a reason is required for unlock") {
		t.Fatalf("unlock without a reason: %v", err)
	}
	ops.ReadOnly = true
	if plan, err = ops.PlanUnstick(ctx, e.key, true, false); err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Apply(ctx, plan, "x"); !errors.Is(err, actions.ErrReadOnly) {
		t.Fatalf("read-only unlock: %v; want actions.ErrReadOnly", err)
	}
	loc, err := ops.Locate(ctx, e.key)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ops.Approve(ctx, &Reviewed{Loc: loc, target: e.target}, "x", nil); !errors.Is(err, actions.ErrReadOnly) {
		t.Fatalf("read-only apply-plan: %v; want actions.ErrReadOnly", err)
	}
	if lines := readAudit(t, auditPath); len(lines) != 3 || lines[0].Outcome != "refused" || lines[1].Outcome != "refused" || lines[2].Outcome != "refused" {
		t.Fatalf("audit %+v", lines)
	}

	viewerCfg := e.c.UserConfig(t, "stack-viewer", []rbacv1.PolicyRule{
		{APIGroups: []string{"pulumi.com"}, Resources: []string{"stacks"}, Verbs: []string{"get", "list", "watch"}},
	}, e.ns)
	viewer, viewerAudit := e.ops(viewerCfg)
	plan, err = viewer.PlanUnstick(ctx, e.key, true, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = viewer.Apply(ctx, plan, "x")
	if !errors.As(err, &r) || !r.Permission || !strings.Contains(r.Reason, "may not patch") {
		t.Fatalf("unlock without permission: %v; want a permission refusal", err)
	}
	if lines := readAudit(t, viewerAudit); len(lines) != 1 || lines[0].Outcome != "refused" || lines[0].Actor != "stack-viewer" {
		t.Fatalf("audit %+v", lines)
	}
	sameFiles(t, before, e.snapshot())

	_, err = viewer.PlanUnstick(ctx, model.Key{Context: "test", Engine: model.EnginePulumi, Namespace: e.ns, Name: "gone"}, false, false)
	if !errors.As(err, &r) || !r.NotFound {
		t.Fatalf("a missing Stack: %v; want a not-found refusal", err)
	}
}
