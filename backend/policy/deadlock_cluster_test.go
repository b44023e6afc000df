package policy

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// lockWorld is a Stack whose file backend holds the lock of a `pulumi up`
// that was killed mid-run, as the real CLI leaves it.
type lockWorld struct {
	hookWorld
	target pulumirun.Target
	bucket string
}

func newLockWorld(t *testing.T) *lockWorld {
	pulumiruntest.Helper(t)
	c := testcluster.Shared(t)
	kc, err := kube.NewCluster("test", c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	w := &lockWorld{hookWorld: hookWorld{t: t, kc: kc, ns: c.Namespace(t), audit: filepath.Join(t.TempDir(), "audit.jsonl")}}
	w.target = pulumiruntest.FileTarget(t, "locked", "dev")
	w.target.Inline = "slow"
	w.bucket = strings.TrimPrefix(w.target.BackendURL, "file://")
	for k, v := range w.target.Env {
		t.Setenv(k, v)
	}
	w.killUpMidRun()
	// The operator's next run fails on that lock: the message is the CLI's own.
	refused := w.up()
	if !pulumiop.LockConflict(refused) {
		t.Fatalf("an up of the locked stack failed with %q; want the CLI's lock error", refused)
	}
	t.Logf("the next up is refused: %s", refused)
	w.createStack(refused)
	return w
}

// plan previews the program and saves its plan.
func (w *lockWorld) plan() string {
	w.t.Helper()
	plan := filepath.Join(w.t.TempDir(), "plan.json")
	if _, err := pulumirun.Preview(context.Background(), w.target, pulumirun.PreviewOptions{PlanPath: plan}); err != nil {
		w.t.Fatal(err)
	}
	return plan
}

// up runs an up and returns its error, "" when it succeeded.
func (w *lockWorld) up() string {
	w.t.Helper()
	_, err := pulumirun.ApplyPlan(context.Background(), w.target, w.plan(), nil)
	if err == nil {
		return ""
	}
	return err.Error()
}

// killUpMidRun starts an up whose program blocks while it holds the lock,
// and kills the CLI with SIGKILL, so that nothing releases the lock.
func (w *lockWorld) killUpMidRun() {
	t := w.t
	plan := w.plan()
	upDone := make(chan error, 1)
	go func() {
		_, err := pulumirun.ApplyPlan(context.Background(), w.target, plan, nil)
		upDone <- err
	}()
	be, err := pulumistate.Open(context.Background(), w.target.BackendURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { be.Close() }()
	ref := w.ref()
	var live pulumistate.StackInfo
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		live, err = be.Stack(context.Background(), ref)
		if err == nil && len(live.Locks) == 1 && live.Locks[0].Holder == pulumistate.HolderAlive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the up never took the lock: %+v, %v", live, err)
		}
	}
	if err := syscall.Kill(live.Locks[0].PID, syscall.SIGKILL); err != nil {
		t.Fatalf("killing the CLI (pid %d): %v", live.Locks[0].PID, err)
	}
	killed := time.Now()
	select {
	case err := <-upDone:
		t.Logf("the killed up ended %v after the kill: %v", time.Since(killed), err)
		if err == nil {
			t.Fatal("the killed up succeeded")
		}
	case <-time.After(90 * time.Second):
		t.Fatal("the killed up did not end")
	}
	// The state is read again through a fresh backend when a read fails:
	// on a loaded machine the first read after the kill has answered EOF
	// once; what the test holds is the lock left behind.
	var dead pulumistate.StackInfo
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		dead, err = be.Stack(context.Background(), ref)
		if err == nil {
			break
		}
		t.Logf("reading the stack after the kill: %v; reading again", err)
		be.Close()
		if be, err = pulumistate.Open(context.Background(), w.target.BackendURL); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the stack could not be read after the kill")
		}
	}
	// A kill that lands while the CLI saves its checkpoint also tears the
	// checkpoint's sidecar (ADR 0050), and every later CLI run then fails
	// on "EOF" before it reaches the lock. That repair has its own tests;
	// this world is about the lock, so the tear is mended here.
	if len(dead.Torn) > 0 {
		t.Logf("the kill tore %v; removing it", dead.Torn)
		r, err := be.RemoveTorn(context.Background(), ref)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Apply(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(dead.Locks) != 1 || dead.Locks[0].Holder != pulumistate.HolderDead {
		t.Fatalf("after the kill the stack is %+v; want one lock held by a dead process", dead)
	}
}

func (w *lockWorld) ref() pulumistate.StackRef {
	return pulumistate.StackRef{Org: "organization", Project: w.target.Project, Stack: w.target.Stack}
}

// createStack points a Stack at the locked stack, marked as the operator
// marks a Stack whose runs fail on the lock: retrying for 20 minutes.
func (w *lockWorld) createStack(message string) {
	ctx := context.Background()
	o := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pulumi.com/v1", "kind": "Stack",
		"metadata": map[string]any{"name": "locked", "namespace": w.ns},
		"spec":     map[string]any{"stack": "organization/locked/dev", "backend": w.target.BackendURL, "projectRepo": "https://git.example.com/locked.git"},
	}}
	out, err := w.kc.Dynamic.Resource(pulumiop.Stacks).Namespace(w.ns).Create(ctx, o, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	since := time.Now().Add(-20 * time.Minute).UTC().Format(time.RFC3339)
	out.Object["status"] = map[string]any{
		"lastUpdate": map[string]any{"state": "failed", "message": message},
		"conditions": []any{
			map[string]any{"type": "Ready", "status": "False", "reason": "NotReady", "message": "", "lastTransitionTime": since},
			map[string]any{"type": "Reconciling", "status": "True", "reason": "RetryingAfterFailure", "message": "", "lastTransitionTime": since},
		},
	}
	if _, err := w.kc.Dynamic.Resource(pulumiop.Stacks).Namespace(w.ns).UpdateStatus(ctx, out, metav1.UpdateOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

func (w *lockWorld) stack() *unstructured.Unstructured {
	o, err := w.kc.Dynamic.Resource(pulumiop.Stacks).Namespace(w.ns).Get(context.Background(), "locked", metav1.GetOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	return o
}

func (w *lockWorld) units() []*model.Unit {
	u := pulumiop.Convert("test", w.stack().Object)
	model.Derive(u, time.Now(), model.DefaultThresholds)
	return []*model.Unit{u}
}

func (w *lockWorld) engine(rule Rule) *Engine { return realEngine(w.t, w.kc, w.audit, rule) }

// files is every file of the state bucket, byte for byte.
func (w *lockWorld) files() map[string]string {
	w.t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(w.bucket, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, w.bucket)] = string(b)
		return err
	})
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

var lockRule = Rule{Name: "break-dead-locks", When: StackDeadLock, After: 10 * time.Minute, MaxAttempts: 3, MaxPerHour: 5}

func TestClusterADeadLockPolicyBreaksTheKilledRunsLockAndReRequestsARun(t *testing.T) {
	w := newLockWorld(t)
	ctx := context.Background()
	locks := pulumiruntest.LockFiles(t, w.target)
	if len(locks) != 1 {
		t.Fatalf("lock files before the policy: %v; want the killed run's", locks)
	}
	lockID := strings.TrimSuffix(locks[0], ".json")
	files, version := w.files(), w.stack().GetResourceVersion()

	// The lock is seconds old, younger than the policy's 10 minutes: though
	// the Stack has failed on it for 20, it is left alone, and said once.
	var log bytes.Buffer
	young := w.engine(lockRule)
	young.Log = &log
	young.Remediate(ctx, w.units())
	young.Remediate(ctx, w.units())
	if l := pulumiruntest.LockFiles(t, w.target); len(l) != 1 || len(w.auditLines()) != 0 || w.stack().GetResourceVersion() != version {
		t.Fatalf("a young lock was not left alone: lock files %v, audit %+v", l, w.auditLines())
	}
	if n := strings.Count(log.String(), "waiting "); n != 1 || !strings.Contains(log.String(), "not older than 10m: left alone") {
		t.Errorf("the log about the young lock (want it said once):\n%s", log.String())
	}

	// A quarter of an hour later the lock is old, its holder still gone.
	later := func(e *Engine) *Engine {
		e.Now = func() time.Time { return time.Now().Add(15 * time.Minute) }
		return e
	}

	// In dry-run the policy writes nothing and says what it would do.
	dry := lockRule
	dry.DryRun = true
	later(w.engine(dry)).Remediate(ctx, w.units())
	if after := w.files(); !equalFiles(files, after) {
		t.Errorf("a dry-run policy changed the state backend: %d files before, %d after, lock files now %v", len(files), len(after), pulumiruntest.LockFiles(t, w.target))
	}
	if v := w.stack().GetResourceVersion(); v != version {
		t.Errorf("a dry-run policy changed the Stack (resourceVersion %s -> %s)", version, v)
	}
	if ev := w.eventReasons(); len(ev) != 0 {
		t.Errorf("a dry-run policy recorded Events: %q", ev)
	}
	var got []string
	for _, l := range w.auditLines() {
		got = append(got, l.Action+" "+l.Outcome+" "+l.Reason+" "+string(l.Patch))
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "unlock dry-run policy break-dead-locks: lock ") || !strings.Contains(got[0], "held for 15m, longer than 10m, by pid ") ||
		!strings.Contains(got[0], "on this host, which is gone") ||
		!strings.Contains(got[0], lockID) || !strings.HasPrefix(got[1], "retry dry-run policy break-dead-locks: ") {
		t.Fatalf("audit of the dry-run policy: %q; want a dry-run unlock naming the lock %s, then a dry-run retry, both naming the policy", got, lockID)
	}

	// For real: the lock is gone, a run is requested, and both say why.
	later(w.engine(lockRule)).Remediate(ctx, w.units())
	if l := pulumiruntest.LockFiles(t, w.target); len(l) != 0 {
		t.Fatalf("lock files after the policy: %v; want none", l)
	}
	if req := w.stack().GetAnnotations()[pulumiop.AnnotationReconcileRequest]; !strings.HasPrefix(req, "driftdeck-") {
		t.Errorf("reconciliation request after the policy: %q; want a new driftdeck request", req)
	}
	got = nil
	for _, l := range w.auditLines()[2:] {
		got = append(got, l.Action+" "+l.Outcome+" "+l.Reason)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "unlock done policy break-dead-locks: lock ") ||
		!strings.HasPrefix(got[1], "retry done policy break-dead-locks: lock ") {
		t.Errorf("audit of the policy: %q; want a done unlock then a done retry, both naming the policy", got)
	}
	ev := w.eventReasons()
	joined := strings.Join(ev, "\n")
	if len(ev) != 2 || !strings.Contains(joined, "DriftdeckUnlock: ") || !strings.Contains(joined, "DriftdeckRetry: ") || strings.Count(joined, "policy break-dead-locks") != 2 {
		t.Errorf("Events: want an unlock and a retry, each naming the policy:\n%s", joined)
	}

	// The lock it broke was the one blocking runs: the next up goes through.
	w.target.Inline = "stashes"
	if msg := w.up(); msg != "" {
		t.Errorf("an up after the policy failed: %s", msg)
	}
}

func equalFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for p, body := range a {
		if other, ok := b[p]; !ok || other != body {
			return false
		}
	}
	return true
}
