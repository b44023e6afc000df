package actions

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// ownEnv is the package's shared control plane, with the project's own
// CRDs, for behaviour that does not depend on the CRD generation.
func ownEnv(t *testing.T) *env {
	c := testcluster.Shared(t)
	return newEnv(t, c, c.Config())
}

// ownEnvAlone is a control plane of the test's own with the project's CRDs:
// for a test that installs more CRDs, which the other tests must not see.
func ownEnvAlone(t *testing.T) *env {
	own, err := testcluster.OwnCRDs()
	if err != nil {
		t.Fatal(err)
	}
	c := testcluster.Start(t, testcluster.Options{CRDSets: []testcluster.CRDSet{own}})
	return newEnv(t, c, c.Config())
}

func (e *env) mergePatch(gvr schema.GroupVersionResource, name, patch string) {
	e.t.Helper()
	_, err := e.dyn.Resource(gvr).Namespace(e.ns).Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
}

func TestClusterTheConfirmedPlanIsTheWrittenPlan(t *testing.T) {
	e := ownEnv(t)
	ctx := context.Background()
	e.sub("an object changed after the plan is not written; the new plan comes back", func(t *testing.T, e *env) {
		e.app("web", `"automated":{"prune":true,"selfHeal":true}`, drifted)
		key := e.key(model.EngineArgoCD, "web")
		confirmed := e.planned(Request{Kind: Pause, Key: key, Reason: "INC-7"})
		// Somebody turns self-heal off while the dialog is open.
		e.mergePatch(argocd.Applications, "web", `{"spec":{"syncPolicy":{"automated":{"selfHeal":false}}}}`)
		before := e.get(argocd.Applications, "web")

		_, err := e.send(confirmed)
		var changed *PlanChanged
		if !errors.As(err, &changed) {
			t.Fatalf("want *PlanChanged, got %v", err)
		}
		var refusal *Refusal
		if !errors.As(err, &refusal) {
			t.Error("a changed plan must also be a refusal (nothing written, exit 6)")
		}
		after := e.get(argocd.Applications, "web")
		if jsonOf(t, after.Object) != jsonOf(t, before.Object) {
			t.Fatalf("the object was written although the plan changed:\nbefore %s\nafter  %s", jsonOf(t, before.Object), jsonOf(t, after.Object))
		}
		if changed.Plan == nil || changed.Plan.ResourceVersion != after.GetResourceVersion() {
			t.Fatalf("the new plan must be made from the object as it is now (%s): %+v", after.GetResourceVersion(), changed.Plan)
		}
		if !contains(changed.Changes, `paused-previous: {"prune":true,"selfHeal":false} (was {"prune":true,"selfHeal":true})`) {
			t.Errorf("the changes must say what differs from the confirmed plan: %q", changed.Changes)
		}
		if ev := e.events("web"); len(ev) != 0 {
			t.Errorf("an unwritten action left events: %v", ev)
		}
		if lines := e.auditLines(); len(lines) != 1 || lines[0].Outcome != "refused" || !strings.Contains(lines[0].Error, "changed since the plan was confirmed") {
			t.Errorf("the refused attempt must be audited: %+v", lines)
		}

		// Confirming the new plan writes it, bound to its version.
		res := e.mustSend(changed.Plan)
		if res.Plan.Patch[0] != (Op{Op: "test", Path: "/metadata/resourceVersion", Value: changed.Plan.ResourceVersion}) {
			t.Errorf("a bound write must carry the version as its first precondition: %+v", res.Plan.Patch[0])
		}
		if got := e.get(argocd.Applications, "web").GetAnnotations()["driftdeck.io/paused-previous"]; got != `{"prune":true,"selfHeal":false}` {
			t.Errorf("paused-previous %q: the write is not the plan confirmed second", got)
		}
		// The server itself enforces the version: the same patch again fails.
		body, _ := patch(res.Plan.Patch).bytes()
		_, err = e.dyn.Resource(argocd.Applications).Namespace(e.ns).Patch(ctx, "web", types.JSONPatchType, body, metav1.PatchOptions{})
		if err == nil || !PreconditionFailed(err) {
			t.Fatalf("a JSON patch testing a stale resourceVersion must be refused by the API server, got %v", err)
		}
	})
	e.sub("a status write alone changes no plan: the confirmed write goes through, bound to the new version", func(t *testing.T, e *env) {
		e.app("web", `"automated":{"prune":true}`, drifted)
		key := e.key(model.EngineArgoCD, "web")
		confirmed := e.planned(Request{Kind: Refresh, Key: key})
		// A controller's status update lands while the user reads the plan.
		e.mergePatch(argocd.Applications, "web", `{"status":{"reconciledAt":"2026-11-29T10:00:00Z"}}`)
		moved := e.get(argocd.Applications, "web").GetResourceVersion()
		res, err := e.send(confirmed)
		if err != nil {
			t.Fatalf("a plan that writes and checks the same must be written: %v", err)
		}
		if res.Plan.Patch[0] != (Op{Op: "test", Path: "/metadata/resourceVersion", Value: moved}) {
			t.Errorf("the write must be bound to the version it was checked against (%s): %+v", moved, res.Plan.Patch[0])
		}
		if patchText(res.Plan.Patch[1:]) != patchText(confirmed.Patch[1:]) {
			t.Errorf("the write is not the confirmed plan:\nsent      %s\nconfirmed %s", patchText(res.Plan.Patch[1:]), patchText(confirmed.Patch[1:]))
		}
		if got := e.get(argocd.Applications, "web").GetAnnotations()[argocd.AnnotationRefresh]; got != "normal" {
			t.Fatalf("refresh annotation %q after the write", got)
		}
	})
	e.sub("however many plans are shown meanwhile, each writes what it showed", func(t *testing.T, e *env) {
		e.app("web", `"automated":{"prune":true}`, drifted)
		key := e.key(model.EngineArgoCD, "web")
		shownAt := time.Now().Add(-time.Hour).Truncate(time.Second)
		e.exec.Now = func() time.Time { return shownAt }
		first := e.planned(Request{Kind: Pause, Key: key, Reason: "INC-7"})
		// Other dialogs and commands plan the unit many times over.
		e.exec.Now = nil
		for range 300 {
			e.planned(Request{Kind: Pause, Key: key, Reason: "INC-7"})
		}
		e.mustSend(first)
		if got := e.get(argocd.Applications, "web").GetAnnotations()[pause.AnnotationAt]; got != shownAt.UTC().Format(time.RFC3339) {
			t.Errorf("paused-at %q, want %s: the time the first plan showed", got, shownAt.UTC().Format(time.RFC3339))
		}
	})
	e.sub("a changed object whose action is no longer possible is refused as such", func(t *testing.T, e *env) {
		e.app("web", `"automated":{"prune":true}`, drifted)
		key := e.key(model.EngineArgoCD, "web")
		confirmed := e.planned(Request{Kind: Pause, Key: key, Reason: "me"})
		e.mustRun(Request{Kind: Pause, Key: key, Reason: "somebody else, first"})
		_, err := e.send(confirmed)
		var r *Refusal
		if !errors.As(err, &r) || !r.NothingToDo || !strings.Contains(r.Reason, "already paused") {
			t.Fatalf("want nothing to do (already paused), got %v", err)
		}
	})
}

func TestClusterRefusalsAreTypedAndAuditedForEveryWrite(t *testing.T) {
	e := ownEnv(t)
	e.sub("a missing unit is not found", func(t *testing.T, e *env) {
		_, err := e.run(Request{Kind: Refresh, Key: e.key(model.EngineArgoCD, "gone")})
		var r *Refusal
		if !errors.As(err, &r) || !r.NotFound {
			t.Fatalf("want a not-found refusal, got %v", err)
		}
		if lines := e.auditLines(); len(lines) != 1 || lines[0].Outcome != "refused" {
			t.Fatalf("audit %+v", lines)
		}
	})
	e.sub("a destructive write without a reason is refused, a refresh needs none", func(t *testing.T, e *env) {
		before := e.app("web", `"automated":{}`, drifted)
		_, err := e.run(Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "  "})
		var r *Refusal
		if !errors.As(err, &r) || !strings.Contains(r.Reason, "a reason is required for pause") {
			t.Fatalf("want a refusal asking for a reason, got %v", err)
		}
		if e.get(argocd.Applications, "web").GetResourceVersion() != before.GetResourceVersion() {
			t.Fatal("written without a reason")
		}
		e.mustRun(Request{Kind: Refresh, Key: e.key(model.EngineArgoCD, "web")})
		if lines := e.auditLines(); len(lines) != 2 || lines[0].Outcome != "refused" || lines[1].Outcome != "done" {
			t.Fatalf("audit %+v", lines)
		}
	})
	e.sub("a viewer is refused with a permission refusal, audited", func(t *testing.T, e *env) {
		before := e.stack("net", "", `,"commit":"`+pinned+`"`)
		cfg := e.c.UserConfig(t, "stack-viewer", []rbacv1.PolicyRule{
			{APIGroups: []string{"pulumi.com"}, Resources: []string{"stacks"}, Verbs: []string{"get", "list", "watch"}},
		}, e.ns)
		viewer := newEnv(t, e.c, cfg)
		viewer.ns = e.ns
		_, err := viewer.run(Request{Kind: Retry, Key: viewer.key(model.EnginePulumi, "net"), Reason: "try"})
		var r *Refusal
		if !errors.As(err, &r) || !r.Permission {
			t.Fatalf("want a permission refusal, got %v", err)
		}
		if e.get(pulumiop.Stacks, "net").GetResourceVersion() != before.GetResourceVersion() {
			t.Fatal("written without permission")
		}
		if lines := viewer.auditLines(); len(lines) != 1 || lines[0].Outcome != "refused" || lines[0].Actor == "" {
			t.Fatalf("audit %+v", lines)
		}
	})
}

func TestClusterBulkSaysAppliedSkippedFailedPerUnit(t *testing.T) {
	e := ownEnv(t)
	ctx := context.Background()
	e.sub("refresh on apps and stacks refreshes the apps and skips the stacks", func(t *testing.T, e *env) {
		e.app("web", `"automated":{}`, drifted)
		e.app("api", `"automated":{}`, drifted)
		pending := e.app("queued", `"automated":{}`, drifted)
		e.mergePatch(argocd.Applications, pending.GetName(), `{"metadata":{"annotations":{"`+argocd.AnnotationRefresh+`":"normal"}}}`)
		e.stack("net", "", `,"commit":"`+pinned+`"`)
		keys := []model.Key{e.key(model.EngineArgoCD, "web"), e.key(model.EnginePulumi, "net"), e.key(model.EngineArgoCD, "api"), e.key(model.EngineArgoCD, "queued")}
		out := e.exec.Bulk(ctx, BulkRequest{Kind: Refresh, Keys: keys})
		want := []Outcome{OutcomeApplied, OutcomeSkipped, OutcomeApplied, OutcomeSkipped}
		for i, o := range out {
			if o.Key != keys[i] || o.Outcome != want[i] {
				t.Errorf("%s: %s (%s), want %s", o.Key.Ref(), o.Outcome, o.Why, want[i])
			}
		}
		if len(out) != 4 || out[1].Why != "refresh is not possible for pulumi units" || !strings.Contains(out[3].Why, "already requested") || out[1].Err != nil || out[3].Err != nil {
			t.Fatalf("outcomes %+v", out)
		}
		for _, name := range []string{"web", "api"} {
			if v := e.get(argocd.Applications, name).GetAnnotations()[argocd.AnnotationRefresh]; v != "normal" {
				t.Errorf("%s not refreshed (%q)", name, v)
			}
		}
		if _, ok := e.get(pulumiop.Stacks, "net").GetAnnotations()[argocd.AnnotationRefresh]; ok {
			t.Error("a Stack got Argo CD's refresh annotation")
		}
	})
	e.sub("pause skips manual apps and fails the missing", func(t *testing.T, e *env) {
		e.app("auto", `"automated":{"prune":true}`, drifted)
		e.app("manual", ``, drifted)
		e.stack("net", "", `,"branch":"main"`)
		keys := []model.Key{e.key(model.EngineArgoCD, "auto"), e.key(model.EngineArgoCD, "manual"), e.key(model.EngineArgoCD, "gone"), e.key(model.EnginePulumi, "net")}
		out := e.exec.Bulk(ctx, BulkRequest{Kind: Pause, Keys: keys, Reason: "INC-9 freeze", Until: time.Now().Add(time.Hour)})
		want := []Outcome{OutcomeApplied, OutcomeSkipped, OutcomeFailed, OutcomeApplied}
		for i, o := range out {
			if o.Outcome != want[i] {
				t.Errorf("%s: %s (%s), want %s", o.Key.Ref(), o.Outcome, o.Why, want[i])
			}
		}
		if !strings.Contains(out[1].Why, "manual sync policy") || out[2].Err == nil || !strings.Contains(out[2].Why, "does not exist") {
			t.Fatalf("outcomes %+v", out)
		}
		if u := argocd.Convert("test", e.get(argocd.Applications, "auto").Object); u.Pause == nil || u.Pause.Reason != "INC-9 freeze" {
			t.Errorf("auto not paused with the bulk reason: %+v", u.Pause)
		}
		if lines := e.auditLines(); len(lines) != 4 {
			t.Errorf("every unit's attempt must be audited: %+v", lines)
		}
	})
	e.sub("read-only fails every unit with the one read-only error", func(t *testing.T, e *env) {
		e.app("auto", `"automated":{}`, drifted)
		e.exec.ReadOnly = true
		defer func() { e.exec.ReadOnly = false }()
		out := e.exec.Bulk(ctx, BulkRequest{Kind: Pause, Keys: []model.Key{e.key(model.EngineArgoCD, "auto")}, Reason: "x"})
		if len(out) != 1 || out[0].Outcome != OutcomeFailed || !errors.Is(out[0].Err, ErrReadOnly) {
			t.Fatalf("outcomes %+v", out)
		}
	})
}

func TestClusterUnlockIsOfferedWhenAStackIsStuckOnALock(t *testing.T) {
	e := ownEnv(t)
	e.sub("stuck on a lock, and not", func(t *testing.T, e *env) {
		locked := e.create(pulumiop.Stacks, `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"net"},
			"spec":{"stack":"org/net/prod","projectRepo":"https://git.example.com/infra.git"},
			"status":{"lastUpdate":{"state":"failed","message":"error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `+"`pulumi cancel`"+`."},
				"conditions":[{"type":"Ready","status":"False","reason":"NotReady","message":"","lastTransitionTime":"2026-11-29T09:00:00Z"},
				{"type":"Reconciling","status":"True","reason":"RetryingAfterFailure","message":"","lastTransitionTime":"2026-11-29T09:00:00Z"}]}}`)
		fine := e.stack("fine", "", `,"commit":"`+pinned+`"`)
		unlock := func(o map[string]any) model.Availability {
			for _, a := range e.exec.Available(context.Background(), pulumiop.Convert("test", o)) {
				if a.Kind == Unlock {
					return a
				}
			}
			t.Fatal("unlock is not listed for a Stack")
			return model.Availability{}
		}
		if a := unlock(locked.Object); !a.Enabled {
			t.Errorf("unlock not offered on a Stack stuck on a lock: %s", a.WhyNot)
		}
		if a := unlock(fine.Object); a.Enabled || !strings.Contains(a.WhyNot, "not stuck on a state lock") {
			t.Errorf("unlock on a healthy Stack: %+v", a)
		}
		e.exec.ReadOnly = true
		defer func() { e.exec.ReadOnly = false }()
		if a := unlock(locked.Object); a.Enabled || a.WhyNot != "read-only mode" {
			t.Errorf("unlock in read-only mode: %+v", a)
		}
	})
}
