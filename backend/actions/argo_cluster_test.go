package actions

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/sim"
)

const rev = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"

const drifted = `"sync":{"status":"OutOfSync","revision":"` + rev + `"},"health":{"status":"Healthy"}`

func automated(o *unstructured.Unstructured) (map[string]any, bool) {
	m, ok, _ := unstructured.NestedMap(o.Object, "spec", "syncPolicy", "automated")
	return m, ok
}

func TestClusterArgoPauseResumeRoundTrip(t *testing.T) {
	forEachGeneration(t, applicationGVK, func(e *env, set string) {
		legacy := strings.HasPrefix(set, "argocd-v2")
		e.sub("pause and resume restore the policy byte for byte", func(t *testing.T, e *env) {
			before := e.app("web", `"automated":{"prune":true,"selfHeal":true,"allowEmpty":false},"syncOptions":["CreateNamespace=true"]`, drifted)
			policyBefore, _ := automated(before)
			res := e.mustRun(Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "INC-42: hotfix in place", Until: time.Now().Add(2 * time.Hour)})

			paused := e.get(argocd.Applications, "web")
			u := argocd.Convert("test", paused.Object)
			if u.Automation != model.Paused || u.Argo.AutoSync {
				t.Fatalf("after pause: automation %v, auto-sync %v", u.Automation, u.Argo.AutoSync)
			}
			policy, present := automated(paused)
			if legacy {
				// The 2.14 CRD would prune automated.enabled: the block is removed instead.
				if present {
					t.Fatalf("legacy CRD: automated still present: %v", policy)
				}
				if !contains(res.Plan.Changes, "removed") {
					t.Errorf("the plan should say the automated block is removed: %v", res.Plan.Changes)
				}
			} else if policy["enabled"] != false || policy["prune"] != true || policy["selfHeal"] != true {
				t.Fatalf("3.x CRD: want enabled=false and the rest kept, got %v", policy)
			}
			ann := paused.GetAnnotations()
			if ann[pause.AnnotationBy] != e.actor || ann[pause.AnnotationReason] != "INC-42: hotfix in place" || ann[pause.AnnotationUntil] == "" {
				t.Errorf("pause record: %v", ann)
			}
			if ann[pause.AnnotationPrevious] != jsonOf(t, policyBefore) {
				t.Errorf("previous %q, want %q", ann[pause.AnnotationPrevious], jsonOf(t, policyBefore))
			}
			if ev := e.events("web"); !contains(ev, "DriftdeckPause: "+e.actor+" paused auto-sync of argocd/"+e.ns+"/web: INC-42") {
				t.Errorf("events %v", ev)
			}

			e.mustRun(Request{Kind: Resume, Key: e.key(model.EngineArgoCD, "web"), Reason: "INC-42 over"})
			after := e.get(argocd.Applications, "web")
			policyAfter, _ := automated(after)
			if jsonOf(t, policyAfter) != jsonOf(t, policyBefore) {
				t.Fatalf("resume restored %s, want exactly %s", jsonOf(t, policyAfter), jsonOf(t, policyBefore))
			}
			for _, k := range pause.Annotations {
				if _, ok := after.GetAnnotations()[k]; ok {
					t.Errorf("annotation %s left behind", k)
				}
			}
			lines := e.auditLines()
			if len(lines) != 2 || lines[0].Action != "pause" || lines[0].Outcome != "done" || lines[0].Actor != e.actor || lines[0].Previous != jsonOf(t, policyBefore) || len(lines[0].Patch) == 0 {
				t.Errorf("audit log: %+v", lines)
			}
		})
		e.sub("pause self-heal only keeps auto-sync", func(t *testing.T, e *env) {
			e.app("web", `"automated":{"selfHeal":true}`, drifted)
			e.mustRun(Request{Kind: PauseSelfHeal, Key: e.key(model.EngineArgoCD, "web"), Reason: "let the hotfix live"})
			policy, _ := automated(e.get(argocd.Applications, "web"))
			if policy["selfHeal"] != false || policy["enabled"] == false {
				t.Fatalf("policy %v", policy)
			}
			e.mustRun(Request{Kind: Resume, Key: e.key(model.EngineArgoCD, "web"), Reason: "done"})
			if policy, _ := automated(e.get(argocd.Applications, "web")); jsonOf(t, policy) != `{"selfHeal":true}` {
				t.Fatalf("restored %v", policy)
			}
		})
		e.sub("resume refuses a policy changed since the pause", func(t *testing.T, e *env) {
			e.app("web", `"automated":{"prune":true}`, drifted)
			e.mustRun(Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "freeze"})
			_, err := e.dyn.Resource(argocd.Applications).Namespace(e.ns).Patch(context.Background(), "web", types.MergePatchType,
				[]byte(`{"spec":{"syncPolicy":{"automated":{"prune":false,"selfHeal":true}}}}`), metav1.PatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.run(Request{Kind: Resume, Key: e.key(model.EngineArgoCD, "web"), Reason: "done"})
			var r *Refusal
			if !errors.As(err, &r) || !strings.Contains(r.Reason, "changed since the pause") {
				t.Fatalf("want a refusal naming the change, got %v", err)
			}
		})
		e.sub("manual apps have nothing to pause", func(t *testing.T, e *env) {
			e.app("web", ``, drifted)
			_, err := e.run(Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "x"})
			var r *Refusal
			if !errors.As(err, &r) || !r.NothingToDo {
				t.Fatalf("got %v", err)
			}
		})
	})
}

func TestClusterArgoSyncTerminateRefresh(t *testing.T) {
	forEachGeneration(t, applicationGVK, func(e *env, _ string) {
		e.sub("sync writes the operation Argo CD's API writes", func(t *testing.T, e *env) {
			e.app("web", `"automated":{"prune":true},"syncOptions":["CreateNamespace=true","Prune=confirm"],"retry":{"limit":3}`,
				drifted+`,"operationState":{"phase":"Succeeded","startedAt":"2026-11-29T09:00:00Z","finishedAt":"2026-11-29T09:01:00Z","operation":{"sync":{}}}`)
			e.mustRun(Request{Kind: Sync, Key: e.key(model.EngineArgoCD, "web"), Reason: "roll the fix", Prune: true,
				Resources: []Resource{{Group: "apps", Kind: "Deployment", Namespace: "web", Name: "api"}}})
			o := e.get(argocd.Applications, "web")
			op, _, _ := unstructured.NestedMap(o.Object, "operation")
			want := `{"info":[{"name":"Reason","value":"roll the fix"}],"initiatedBy":{"automated":false,"username":"` + e.actor + `"},` +
				`"retry":{"limit":3},"sync":{"prune":true,"resources":[{"group":"apps","kind":"Deployment","name":"api","namespace":"web"}],` +
				`"revision":"","syncOptions":["CreateNamespace=true","Prune=confirm"],"syncStrategy":{"hook":{}}}}`
			if got := jsonOf(t, op); got != want {
				t.Fatalf("operation\n got %s\nwant %s", got, want)
			}
			if _, ok, _ := unstructured.NestedMap(o.Object, "status", "operationState"); ok {
				t.Error("status.operationState must be cleared with the new operation")
			}
			_, err := e.run(Request{Kind: Sync, Key: e.key(model.EngineArgoCD, "web"), Reason: "again"})
			if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Reason, "another operation") {
				t.Fatalf("a second sync must be refused while the first is set: %v", err)
			}
		})
		e.sub("approve is bound to the reviewed revision", func(t *testing.T, e *env) {
			e.app("web", ``, drifted)
			_, err := e.run(Request{Kind: Approve, Key: e.key(model.EngineArgoCD, "web"), Reason: "reviewed", Revision: "ffffffffffffffffffffffffffffffffffffffff"})
			if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Reason, "review the diff again") {
				t.Fatalf("approval of a stale revision: %v", err)
			}
			e.mustRun(Request{Kind: Approve, Key: e.key(model.EngineArgoCD, "web"), Reason: "reviewed", Revision: rev})
			if got, _, _ := unstructured.NestedString(e.get(argocd.Applications, "web").Object, "operation", "sync", "revision"); got != rev {
				t.Fatalf("operation revision %q", got)
			}
		})
		e.sub("terminate a running sync, refuse a zombie", func(t *testing.T, e *env) {
			running := drifted + `,"operationState":{"phase":"Running","startedAt":"2026-11-29T09:00:00Z","operation":{"sync":{}}}`
			e.app("web", `"automated":{}`, running, `"operation":{"sync":{}}`)
			e.mustRun(Request{Kind: Terminate, Key: e.key(model.EngineArgoCD, "web"), Reason: "hung on a hook"})
			if ph, _, _ := unstructured.NestedString(e.get(argocd.Applications, "web").Object, "status", "operationState", "phase"); ph != "Terminating" {
				t.Fatalf("phase %q", ph)
			}
			e.app("zombie", `"automated":{}`, running)
			_, err := e.run(Request{Kind: Terminate, Key: e.key(model.EngineArgoCD, "zombie"), Reason: "x"})
			if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Reason, "zombie") {
				t.Fatalf("zombie: %v", err)
			}
		})
		e.sub("refresh and hard refresh", func(t *testing.T, e *env) {
			e.app("web", `"automated":{}`, drifted)
			e.mustRun(Request{Kind: Refresh, Key: e.key(model.EngineArgoCD, "web")})
			if v := e.get(argocd.Applications, "web").GetAnnotations()[argocd.AnnotationRefresh]; v != "normal" {
				t.Fatalf("refresh annotation %q", v)
			}
			e.mustRun(Request{Kind: HardRefresh, Key: e.key(model.EngineArgoCD, "web")})
			if v := e.get(argocd.Applications, "web").GetAnnotations()[argocd.AnnotationRefresh]; v != "hard" {
				t.Fatalf("hard refresh annotation %q", v)
			}
		})
		e.sub("rollback needs auto-sync paused", func(t *testing.T, e *env) {
			hist := `,"history":[{"id":3,"revision":"3333333333333333333333333333333333333333","deployedAt":"2026-11-20T10:00:00Z","source":{"repoURL":"https://git.example.com/apps.git","path":"web","targetRevision":"main"}},` +
				`{"id":4,"revision":"4444444444444444444444444444444444444444","deployedAt":"2026-11-21T10:00:00Z"}]`
			e.app("web", `"automated":{}`, drifted+hist)
			_, err := e.run(Request{Kind: Rollback, Key: e.key(model.EngineArgoCD, "web"), Reason: "bad deploy", HistoryID: 3})
			if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Reason, "pause it first") {
				t.Fatalf("rollback with auto-sync on: %v", err)
			}
			e.mustRun(Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "bad deploy"})
			e.mustRun(Request{Kind: Rollback, Key: e.key(model.EngineArgoCD, "web"), Reason: "bad deploy", HistoryID: 3})
			sync, _, _ := unstructured.NestedMap(e.get(argocd.Applications, "web").Object, "operation", "sync")
			if sync["revision"] != "3333333333333333333333333333333333333333" || jsonOf(t, sync["syncStrategy"]) != `{"apply":{}}` || sync["source"] == nil {
				t.Fatalf("rollback operation %s", jsonOf(t, sync))
			}
		})
		e.sub("confirm a pending prune", func(t *testing.T, e *env) {
			started := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
			e.app("web", `"automated":{}`, drifted+`,"operationState":{"phase":"Running","message":"waiting for pruning confirmation of apps/Deployment/old","startedAt":"`+started+`","operation":{"sync":{}}}`, `"operation":{"sync":{}}`)
			e.mustRun(Request{Kind: ConfirmPrune, Key: e.key(model.EngineArgoCD, "web"), Reason: "old is gone for good"})
			v := e.get(argocd.Applications, "web").GetAnnotations()[argocd.AnnotationDeletionApproved]
			at, err := time.Parse(time.RFC3339, v)
			if err != nil || at.Before(time.Now().Add(-time.Minute).Truncate(time.Second)) {
				t.Fatalf("deletion-approved %q must be an RFC 3339 time at or after the operation start", v)
			}
		})
		e.sub("a sync window that forbids manual syncs refuses", func(t *testing.T, e *env) {
			e.create(argocd.AppProjects, `{"apiVersion":"argoproj.io/v1alpha1","kind":"AppProject","metadata":{"name":"frozen"},
				"spec":{"syncWindows":[{"kind":"deny","schedule":"* * * * *","duration":"1h","applications":["*"],"manualSync":false}]}}`)
			o := e.app("web", ``, drifted)
			o.Object["spec"].(map[string]any)["project"] = "frozen"
			if _, err := e.dyn.Resource(argocd.Applications).Namespace(e.ns).Update(context.Background(), o, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			_, err := e.run(Request{Kind: Sync, Key: e.key(model.EngineArgoCD, "web"), Reason: "now"})
			if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Reason, "deny window") {
				t.Fatalf("window: %v", err)
			}
		})
	})
}

func TestClusterArgoWritesAreSafe(t *testing.T) {
	forEachGeneration(t, applicationGVK, func(e *env, _ string) {
		e.sub("a concurrent status writer loses no write", func(t *testing.T, e *env) {
			e.app("web", `"automated":{"prune":true,"selfHeal":true}`, drifted)
			ctx, cancel := context.WithCancel(context.Background())
			w := &sim.StatusWriter{Client: e.dyn.Resource(argocd.Applications).Namespace(e.ns), Name: "web",
				Counter: []string{"health", "message"}, Stamp: []string{"reconciledAt"}}
			var wg sync.WaitGroup
			var writes int
			var werr error
			wg.Add(1)
			go func() { defer wg.Done(); writes, werr = w.Run(ctx) }()
			time.Sleep(200 * time.Millisecond)
			for _, k := range []Kind{Pause, Resume, Pause, Refresh, Resume, Sync} {
				e.mustRun(Request{Kind: k, Key: e.key(model.EngineArgoCD, "web"), Reason: "under load"})
			}
			time.Sleep(200 * time.Millisecond)
			cancel()
			wg.Wait()
			if werr != nil {
				t.Fatal(werr)
			}
			o := e.get(argocd.Applications, "web")
			got, _, _ := unstructured.NestedString(o.Object, "status", "health", "message")
			if got != itoa(writes) || writes < 10 {
				t.Fatalf("the status writer made %d writes but the object holds %q", writes, got)
			}
			if op, ok, _ := unstructured.NestedMap(o.Object, "operation"); !ok || op["initiatedBy"] == nil {
				t.Fatal("driftdeck's last write (the sync) was lost")
			}
			if policy, _ := automated(o); jsonOf(t, policy) != `{"prune":true,"selfHeal":true}` {
				t.Fatalf("policy after pause/resume under load: %s", jsonOf(t, policy))
			}
		})
		e.sub("without patch permission nothing is written", func(t *testing.T, e *env) {
			before := e.app("web", `"automated":{}`, drifted)
			cfg := e.c.UserConfig(t, "viewer", []rbacv1.PolicyRule{
				{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications", "appprojects"}, Verbs: []string{"get", "list", "watch"}},
			}, e.ns)
			viewer := newEnv(t, e.c, cfg)
			viewer.ns = e.ns
			_, err := viewer.run(Request{Kind: Pause, Key: viewer.key(model.EngineArgoCD, "web"), Reason: "try"})
			var r *Refusal
			if !errors.As(err, &r) || !r.Permission || !strings.Contains(r.Reason, "may not patch applications.argoproj.io in namespace "+e.ns) {
				t.Fatalf("want a permission refusal naming the verb and resource, got %v", err)
			}
			if after := e.get(argocd.Applications, "web"); after.GetResourceVersion() != before.GetResourceVersion() {
				t.Fatal("the object changed although the write was refused")
			}
			if lines := viewer.auditLines(); len(lines) != 1 || lines[0].Outcome != "refused" {
				t.Fatalf("the refusal must be audited: %+v", lines)
			}
			avail := viewer.exec.Available(context.Background(), argocd.Convert("test", before.Object))
			for _, a := range avail {
				if a.Enabled || !strings.Contains(a.WhyNot, "RBAC") {
					t.Errorf("%s offered to a viewer: %+v", a.Kind, a)
				}
			}
		})
		e.sub("read-only and dry-run write nothing", func(t *testing.T, e *env) {
			before := e.app("web", `"automated":{}`, drifted)
			e.exec.ReadOnly = true
			if _, err := e.run(Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "x"}); !errors.Is(err, ErrReadOnly) {
				t.Fatalf("read-only: %v", err)
			}
			if _, err := e.run(Request{Kind: Refresh, Key: e.key(model.EngineArgoCD, "web")}); !errors.Is(err, ErrReadOnly) {
				t.Fatalf("read-only refresh: %v", err)
			}
			e.exec.ReadOnly, e.exec.DryRun = false, true
			res := e.mustRun(Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "x"})
			e.exec.DryRun = false
			if !res.DryRun {
				t.Error("result not marked as a dry run")
			}
			if after := e.get(argocd.Applications, "web"); after.GetResourceVersion() != before.GetResourceVersion() {
				t.Fatal("a dry run changed the object")
			}
			if ev := e.events("web"); len(ev) != 0 {
				t.Fatalf("a dry run recorded events: %v", ev)
			}
			lines := e.auditLines()
			if len(lines) != 3 || lines[0].Outcome != "refused" || lines[1].Outcome != "refused" || lines[0].Error != ErrReadOnly.Error() ||
				lines[2].Outcome != "dry-run" || !lines[2].DryRun || len(lines[2].Patch) == 0 {
				t.Fatalf("every attempt must be audited (two refused, one dry run): %+v", lines)
			}
		})
		e.sub("a revert by the owning ApplicationSet is reported", func(t *testing.T, e *env) {
			e.app("owned", `"automated":{"selfHeal":true}`, drifted)
			o := e.get(argocd.Applications, "owned")
			o.SetOwnerReferences(ownerRefs("team-apps"))
			if _, err := e.dyn.Resource(argocd.Applications).Namespace(e.ns).Update(context.Background(), o, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go revertPolicy(ctx, e, "owned", `{"spec":{"syncPolicy":{"automated":{"selfHeal":true,"enabled":null}}}}`)
			e.exec.Settle = time.Second
			defer func() { e.exec.Settle = 0 }()
			start := time.Now()
			res, err := e.run(Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "owned"), Reason: "x"})
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took >= e.exec.Settle {
				t.Errorf("Execute took %v: it must answer once the write is verified, not wait for a revert", took)
			}
			if !contains(res.Plan.Warnings, "ApplicationSet/team-apps manages this object") {
				t.Errorf("no warning before the write: %v", res.Plan.Warnings)
			}
			if res.MayRevert != "ApplicationSet/team-apps" {
				t.Errorf("MayRevert %q, want the owning ApplicationSet", res.MayRevert)
			}
			if warnings := e.exec.Settled(ctx, res); !contains(warnings, "reverted by ApplicationSet/team-apps within 1s") {
				t.Fatalf("revert not reported: %v", warnings)
			}
		})
	})
}

// A confirmed pause writes what its confirmation showed, to the second: the
// plan's time is the pause's, however long the user looked at it.
func TestClusterAConfirmedPauseWritesTheTimesItShowed(t *testing.T) {
	forEachGeneration(t, applicationGVK, func(e *env, _ string) {
		e.sub("paused-at and paused-until as shown", func(t *testing.T, e *env) {
			e.app("web", `"automated":{"selfHeal":true}`, drifted)
			shownAt := time.Now().Add(-10 * time.Minute).Truncate(time.Second)
			e.exec.Now = func() time.Time { return shownAt }
			defer func() { e.exec.Now = nil }()
			req := Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "INC-8", Until: shownAt.Add(2 * time.Hour)}
			plan, err := e.exec.Plan(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			e.exec.Now = nil // the user confirms ten minutes later
			e.mustSend(plan)
			ann := e.get(argocd.Applications, "web").GetAnnotations()
			for _, a := range []string{pause.AnnotationAt, pause.AnnotationUntil, pause.AnnotationReason} {
				if want := "metadata.annotations." + a + ": " + ann[a]; !contains(plan.Changes, want) {
					t.Errorf("written %s=%q, not what the plan showed: %v", a, ann[a], plan.Changes)
				}
			}
		})
	})
}
