package actions

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/sim"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

var applicationSetGVK = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "ApplicationSet"}

// appSetEnv is an env whose namespace has an ApplicationSet "team" with
// two generated children, web and api, and the simulated ApplicationSet
// controller (the upstream rules) reconciling it.
type appSetEnv struct {
	*env
	ctl *sim.AppSet
}

// team is the ApplicationSet: a list generator, an auto-syncing self-healing
// template, and (see othersRule) an ignore rule of somebody else's that must
// stay as it is.
const team = `{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationSet","metadata":{"name":"team"},
	"spec":{"goTemplate":true,
		"generators":[{"list":{"elements":[{"svc":"web"},{"svc":"api"}]}}],%s
		"template":{"metadata":{"name":"{{.svc}}","labels":{"team":"t"}},
			"spec":{"project":"default","source":{"repoURL":"https://git.example.com/apps.git","path":"{{.svc}}","targetRevision":"main"},
				"destination":{"server":"https://kubernetes.default.svc","namespace":"{{.svc}}"},
				"syncPolicy":{"automated":{"prune":true,"selfHeal":true}}}}}}`

const othersRule = `"ignoreApplicationDifferences":[{"name":"api","jsonPointers":["/spec/source/targetRevision"]}],`

func (e *env) withAppSet(t *testing.T) *appSetEnv { return e.withAppSetRules(t, othersRule) }

func (e *env) withAppSetRules(t *testing.T, rules string) *appSetEnv {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ctl := sim.NewAppSet(e.dyn, sim.AppSetOptions{Namespace: e.ns, Resync: 50 * time.Millisecond, OnError: func(err error) {
		if ctx.Err() == nil {
			t.Logf("applicationset controller: %v", err)
		}
	}})
	go func() { _ = ctl.Run(ctx) }()
	e.create(argocd.ApplicationSets, team, rules)
	a := &appSetEnv{env: e, ctl: ctl}
	for _, name := range []string{"web", "api"} {
		a.poll(t, "the controller generates "+name, func() bool {
			_, err := e.dyn.Resource(argocd.Applications).Namespace(e.ns).Get(ctx, name, metav1.GetOptions{})
			return err == nil
		})
	}
	return a
}

func (a *appSetEnv) poll(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// reconciled waits until a reconcile of the ApplicationSet has run that
// started after this call: what the child is then, the controller left.
func (a *appSetEnv) reconciled(t *testing.T) {
	t.Helper()
	seen := a.ctl.Passes(a.ns, "team")
	a.poll(t, "the ApplicationSet controller reconciles again", func() bool { return a.ctl.Passes(a.ns, "team") >= seen+2 })
}

// selfHealPauseHoldsAndResumeRestores checks that the child's self-heal
// pause holds through the controller's reconcile, then resumes it and
// checks that the ApplicationSet and the child are as they were before the
// pause.
func (a *appSetEnv) selfHealPauseHoldsAndResumeRestores(t *testing.T, key model.Key, setBefore, webBefore *unstructured.Unstructured) {
	t.Helper()
	e := a.env
	a.reconciled(t)
	if f := argocd.Convert("", e.get(argocd.Applications, "web").Object).Argo; f.SelfHeal || !f.AutoSync {
		t.Fatalf("want self-heal off and auto-sync on after the reconcile: %+v", f)
	}
	e.mustRun(Request{Kind: Resume, Key: key, Reason: "incident over"})
	a.reconciled(t)
	sameFields(t, "ApplicationSet spec", setBefore.Object["spec"], e.get(argocd.ApplicationSets, "team").Object["spec"])
	sameFields(t, "Application spec", webBefore.Object["spec"], e.get(argocd.Applications, "web").Object["spec"])
}

func autoSyncOn(o *unstructured.Unstructured) bool {
	return argocd.Convert("", o.Object).Argo.AutoSync
}

// TestClusterApplicationSetOwnedPauseHolds runs the simulated ApplicationSet
// controller against a real apiserver with Argo CD 2.14's and 3.5's CRDs: a
// plain pause of a generated Application is reverted, driftdeck's pause
// (with its ignoreApplicationDifferences entry) holds, and resume puts both
// objects back exactly as they were.
func TestClusterApplicationSetOwnedPauseHolds(t *testing.T) {
	for _, set := range testcluster.RequireUpstreamCRDSetsServing(t, applicationSetGVK) {
		t.Run(set.Name, func(t *testing.T) {
			c := testcluster.SharedServing(t, []testcluster.CRDSet{set})
			e := newEnv(t, c, c.Config())

			e.sub("a pause of the child alone is reverted by the controller", func(t *testing.T, e *env) {
				a := e.withAppSet(t)
				if _, err := e.dyn.Resource(argocd.Applications).Namespace(e.ns).Patch(context.Background(), "web", types.JSONPatchType,
					[]byte(`[{"op":"remove","path":"/spec/syncPolicy/automated"}]`), metav1.PatchOptions{}); err != nil {
					t.Fatal(err)
				}
				a.poll(t, "the controller reverts the plain pause", func() bool { return autoSyncOn(e.get(argocd.Applications, "web")) })
			})

			e.sub("driftdeck's pause holds and resume restores both objects", func(t *testing.T, e *env) {
				a := e.withAppSet(t)
				a.reconciled(t)
				setBefore, webBefore := e.get(argocd.ApplicationSets, "team"), e.get(argocd.Applications, "web")
				key := e.key(model.EngineArgoCD, "web")

				plan := e.planned(Request{Kind: Pause, Key: key, Reason: "INC-7"})
				if len(plan.Also) != 1 || plan.Also[0].Object != "applicationset/"+e.ns+"/team" || plan.Also[0].When != "before" ||
					!strings.Contains(plan.Also[0].Changes[0], `"name":"web"`) {
					t.Fatalf("the plan must show the ApplicationSet write: %+v", plan.Also)
				}
				e.exec.Settle = 300 * time.Millisecond
				defer func() { e.exec.Settle = 0 }()
				res := e.mustSend(plan)
				if res.MayRevert != "ApplicationSet/team" {
					t.Errorf("MayRevert = %q", res.MayRevert)
				}
				if reverted := e.exec.Settled(context.Background(), res); len(reverted) > 0 {
					t.Fatalf("the pause did not hold: %v", reverted)
				}
				a.reconciled(t)
				web := e.get(argocd.Applications, "web")
				if autoSyncOn(web) {
					t.Fatal("auto-sync is on again after the ApplicationSet controller reconciled")
				}
				if u := argocd.Convert("", web.Object); u.Pause == nil || u.Pause.Reason != "INC-7" {
					t.Fatalf("the pause record did not survive the reconcile: %v", web.GetAnnotations())
				}
				entries, _, _ := unstructured.NestedSlice(e.get(argocd.ApplicationSets, "team").Object, "spec", "ignoreApplicationDifferences")
				oldEntries, _, _ := unstructured.NestedSlice(setBefore.Object, "spec", "ignoreApplicationDifferences")
				if len(entries) != 2 || !reflect.DeepEqual(entries[0], oldEntries[0]) {
					t.Fatalf("want the old entry untouched and one more: %v", entries)
				}
				if !contains(e.events("team"), "added an ignoreApplicationDifferences entry") || !contains(e.events("web"), "paused auto-sync of") {
					t.Errorf("an Event on each object: team %v, web %v", e.events("team"), e.events("web"))
				}
				var units []string
				for _, l := range e.auditLines() {
					units = append(units, l.Action+" "+l.Unit+" "+l.Outcome)
				}
				if !contains(units, "pause applicationset/"+e.ns+"/team done") || !contains(units, "pause argocd/"+e.ns+"/web done") {
					t.Errorf("an audit line for each write: %v", units)
				}

				e.mustRun(Request{Kind: Resume, Key: key, Reason: "INC-7 over"})
				a.reconciled(t)
				setAfter, webAfter := e.get(argocd.ApplicationSets, "team"), e.get(argocd.Applications, "web")
				sameFields(t, "ApplicationSet spec", setBefore.Object["spec"], setAfter.Object["spec"])
				sameFields(t, "Application spec", webBefore.Object["spec"], webAfter.Object["spec"])
				sameFields(t, "Application annotations", webBefore.GetAnnotations(), webAfter.GetAnnotations())
			})

			e.sub("a self-heal pause under an ApplicationSet without rules leaves none after resume", func(t *testing.T, e *env) {
				a := e.withAppSetRules(t, "")
				a.reconciled(t)
				setBefore, webBefore := e.get(argocd.ApplicationSets, "team"), e.get(argocd.Applications, "web")
				key := e.key(model.EngineArgoCD, "web")
				e.exec.Settle = time.Second
				defer func() { e.exec.Settle = 0 }()
				pause := Request{Kind: PauseSelfHeal, Key: key, Reason: "INC-8"}
				if reverted := e.exec.Settled(context.Background(), e.mustRun(pause)); len(reverted) > 0 {
					// A pass of the controller that read the ApplicationSet
					// before its new entry wrote the child after the pause,
					// as real Argo CD's can: driftdeck says so (the operator
					// sees this), and the same pause again holds, the entry
					// now in place.
					t.Logf("the first pause was reverted, and said so: %v", reverted)
					e.mustRun(pause)
				}
				a.selfHealPauseHoldsAndResumeRestores(t, key, setBefore, webBefore)
			})

			e.sub("a pause reverted by a pass that read the set before its entry is paused again with the same entry", func(t *testing.T, e *env) {
				a := e.withAppSetRules(t, "")
				a.reconciled(t)
				setBefore, webBefore := e.get(argocd.ApplicationSets, "team"), e.get(argocd.Applications, "web")
				key := e.key(model.EngineArgoCD, "web")
				e.exec.Settle = 300 * time.Millisecond
				defer func() { e.exec.Settle = 0 }()
				pause := Request{Kind: PauseSelfHeal, Key: key, Reason: "INC-10"}
				first := e.mustRun(pause)
				// What a pass that read the ApplicationSet before the entry
				// writes: the child as generated, the pause's annotations gone.
				stale := webBefore.DeepCopy()
				stale.SetResourceVersion(e.get(argocd.Applications, "web").GetResourceVersion())
				if _, err := e.dyn.Resource(argocd.Applications).Namespace(e.ns).Update(context.Background(), stale, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
				if reverted := e.exec.Settled(context.Background(), first); len(reverted) == 0 {
					t.Fatal("the revert of the pause is not said")
				}
				e.mustRun(pause)
				entries, _, _ := unstructured.NestedSlice(e.get(argocd.ApplicationSets, "team").Object, "spec", "ignoreApplicationDifferences")
				if len(entries) != 1 {
					t.Fatalf("want the first pause's entry taken over, not a second: %v", entries)
				}
				a.selfHealPauseHoldsAndResumeRestores(t, key, setBefore, webBefore)
			})

			e.sub("an entry somebody adds between the confirm and the write is kept", func(t *testing.T, e *env) {
				a := e.withAppSet(t)
				a.reconciled(t)
				key := e.key(model.EngineArgoCD, "web")
				plan := e.planned(Request{Kind: Pause, Key: key, Reason: "INC-9"})
				theirs := `[{"op":"add","path":"/spec/ignoreApplicationDifferences/-","value":{"name":"api","jsonPointers":["/spec/project"]}}]`
				if _, err := e.dyn.Resource(argocd.ApplicationSets).Namespace(e.ns).Patch(context.Background(), "team", types.JSONPatchType, []byte(theirs), metav1.PatchOptions{}); err != nil {
					t.Fatal(err)
				}
				withTheirs := e.get(argocd.ApplicationSets, "team")
				// The ApplicationSet is not as the plan read it: nothing is
				// written, and the plan comes back checking what it holds now.
				_, err := e.send(plan)
				var changed *PlanChanged
				if !errors.As(err, &changed) || !contains(changed.Changes, "applicationset/"+e.ns+"/team changed since the plan was made") {
					t.Fatalf("want the plan back, saying the ApplicationSet changed: %v", err)
				}
				if got := e.get(argocd.ApplicationSets, "team"); got.GetResourceVersion() != withTheirs.GetResourceVersion() {
					t.Fatalf("the ApplicationSet was written by a plan that read it before: %v", got.Object["spec"])
				}
				e.mustSend(changed.Plan)
				entries, _, _ := unstructured.NestedSlice(e.get(argocd.ApplicationSets, "team").Object, "spec", "ignoreApplicationDifferences")
				if len(entries) != 3 || !strings.Contains(jsonOf(t, entries[1]), "/spec/project") || !strings.Contains(jsonOf(t, entries[2]), `"name":"web"`) {
					t.Fatalf("want both earlier entries and driftdeck's: %v", entries)
				}
				e.mustRun(Request{Kind: Resume, Key: key, Reason: "INC-9 over"})
				sameFields(t, "ApplicationSet spec", withTheirs.Object["spec"], e.get(argocd.ApplicationSets, "team").Object["spec"])
			})

			e.sub("dry-run and read-only write to neither object", func(t *testing.T, e *env) {
				a := e.withAppSet(t)
				a.reconciled(t)
				setBefore, webBefore := e.get(argocd.ApplicationSets, "team"), e.get(argocd.Applications, "web")
				key := e.key(model.EngineArgoCD, "web")
				dry := &Executor{Cluster: e.exec.Cluster, Audit: e.exec.Audit, DryRun: true}
				res, err := dry.Execute(context.Background(), Request{Kind: Pause, Key: key, Reason: "rehearsal"})
				if err != nil || !res.DryRun || len(res.Plan.Also) != 1 {
					t.Fatalf("dry run: %v %+v", err, res)
				}
				readOnly := &Executor{Cluster: e.exec.Cluster, Audit: e.exec.Audit, ReadOnly: true}
				if _, err := readOnly.Execute(context.Background(), Request{Kind: Pause, Key: key, Reason: "x"}); !errors.Is(err, ErrReadOnly) {
					t.Fatalf("read-only: %v", err)
				}
				if s, w := e.get(argocd.ApplicationSets, "team"), e.get(argocd.Applications, "web"); s.GetResourceVersion() != setBefore.GetResourceVersion() || w.GetResourceVersion() != webBefore.GetResourceVersion() {
					t.Fatal("a dry run or a read-only pause wrote")
				}
				var outcomes []string
				for _, l := range e.auditLines() {
					outcomes = append(outcomes, l.Unit+" "+l.Outcome)
				}
				if !contains(outcomes, "applicationset/"+e.ns+"/team dry-run") || !contains(outcomes, "argocd/"+e.ns+"/web dry-run") || !contains(outcomes, "argocd/"+e.ns+"/web refused") {
					t.Errorf("audit: %v", outcomes)
				}
			})

			for _, rules := range []struct{ name, rules string }{{"with an entry of somebody else's", othersRule}, {"without any entry", ""}} {
				e.sub("freeze and thaw of both children "+rules.name, func(t *testing.T, e *env) {
					a := e.withAppSetRules(t, rules.rules)
					a.reconciled(t)
					e.exec.Settle = time.Second
					defer func() { e.exec.Settle = 0 }()
					setBefore := e.get(argocd.ApplicationSets, "team")
					keys := []model.Key{e.key(model.EngineArgoCD, "web"), e.key(model.EngineArgoCD, "api")}
					ownerWritesAre(t, e.exec.OwnerWrites(context.Background(), BulkRequest{Kind: Pause, Keys: keys, Reason: "freeze"}), "applicationset/"+e.ns+"/team", false)
					for _, o := range e.exec.Bulk(context.Background(), BulkRequest{Kind: Pause, Keys: keys, Reason: "freeze"}) {
						if o.Outcome != OutcomeApplied {
							t.Fatalf("%s: %s %s", o.Key.Name, o.Outcome, o.Why)
						}
						if reverted := e.exec.Settled(context.Background(), o.Result); reverted != nil {
							t.Errorf("%s: the bulk settled it already, a second check found %v", o.Key.Name, reverted)
						}
					}
					// Both entries in one guarded, audited patch, written before either child.
					var setWrites, firstChild int
					for n, l := range e.auditLines() {
						switch {
						case l.Unit == "applicationset/"+e.ns+"/team" && l.Outcome == "done":
							setWrites++
							if firstChild > 0 {
								t.Errorf("an ApplicationSet write after a child's: %+v", l)
							}
						case strings.HasPrefix(l.Unit, "argocd/"+e.ns+"/") && firstChild == 0:
							firstChild = n + 1
						}
					}
					if setWrites != 1 {
						t.Errorf("want one ApplicationSet write for both children's entries, got %d", setWrites)
					}
					a.reconciled(t)
					for _, k := range keys {
						if autoSyncOn(e.get(argocd.Applications, k.Name)) {
							t.Fatalf("%s: the freeze did not hold", k.Name)
						}
					}
					theirs := `[{"op":"add","path":"/spec/ignoreApplicationDifferences/-","value":{"name":"web","jsonPointers":["/spec/project"]}}]`
					if _, err := e.dyn.Resource(argocd.ApplicationSets).Namespace(e.ns).Patch(context.Background(), "team", types.JSONPatchType, []byte(theirs), metav1.PatchOptions{}); err != nil {
						t.Fatal(err)
					}
					ownerWritesAre(t, e.exec.OwnerWrites(context.Background(), BulkRequest{Kind: Resume, Keys: keys, Reason: "thaw"}), "applicationset/"+e.ns+"/team", true)
					for _, o := range e.exec.Bulk(context.Background(), BulkRequest{Kind: Resume, Keys: keys, Reason: "thaw"}) {
						if o.Outcome != OutcomeApplied {
							t.Fatalf("%s: %s %s", o.Key.Name, o.Outcome, o.Why)
						}
					}
					a.reconciled(t)
					entries, _, _ := unstructured.NestedSlice(e.get(argocd.ApplicationSets, "team").Object, "spec", "ignoreApplicationDifferences")
					if n := len(entries); n == 0 || !strings.Contains(jsonOf(t, entries[n-1]), "/spec/project") {
						t.Fatalf("the entry added meanwhile is gone: %v", entries)
					}
					spec := e.get(argocd.ApplicationSets, "team").Object["spec"].(map[string]any)
					if rules.rules == "" {
						delete(spec, "ignoreApplicationDifferences")
					} else {
						spec["ignoreApplicationDifferences"] = entries[:len(entries)-1]
					}
					sameFields(t, "ApplicationSet spec but the entry added meanwhile", setBefore.Object["spec"], spec)
					for _, k := range keys {
						if !autoSyncOn(e.get(argocd.Applications, k.Name)) {
							t.Errorf("%s: not resumed", k.Name)
						}
					}
				})
			}

			e.sub("without patch on applicationsets nothing is offered", func(t *testing.T, e *env) {
				a := e.withAppSet(t)
				a.reconciled(t)
				cfg := e.c.UserConfig(t, "app-operator", []rbacv1.PolicyRule{
					{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications", "applicationsets"}, Verbs: []string{"get", "list", "watch"}},
					{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"patch"}},
					{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create"}},
				}, e.ns)
				kc, err := kube.NewCluster("test", cfg, e.ns)
				if err != nil {
					t.Fatal(err)
				}
				exec := &Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}
				before := e.get(argocd.Applications, "web")
				for _, av := range exec.Available(context.Background(), argocd.Convert("test", before.Object)) {
					if av.Kind == Pause && (av.Enabled || !strings.Contains(av.WhyNot, "generated by ApplicationSet team")) {
						t.Errorf("pause must not be offered, saying why: %+v", av)
					}
				}
				_, err = exec.Execute(context.Background(), Request{Kind: Pause, Key: e.key(model.EngineArgoCD, "web"), Reason: "x"})
				var r *Refusal
				if !errors.As(err, &r) || !r.Permission || !strings.Contains(r.Reason, "may not patch applicationsets") {
					t.Fatalf("want a permission refusal naming applicationsets, got %v", err)
				}
				if after := e.get(argocd.Applications, "web"); after.GetResourceVersion() != before.GetResourceVersion() {
					t.Fatal("the refused pause wrote to the Application")
				}
			})
		})
	}
}

// ownerWritesAre checks what the bulk dialog shows a freeze or thaw of web
// and api writes to their ApplicationSet: each child's exact entry.
func ownerWritesAre(t *testing.T, got []OwnerWrite, object string, remove bool) {
	t.Helper()
	if len(got) != 1 || got[0].Object != object || got[0].Remove != remove || got[0].OnePatch == remove || len(got[0].Entries) != 2 {
		t.Fatalf("want both children's entries for %s (remove %v): %+v", object, remove, got)
	}
	for i, name := range []string{"web", "api"} {
		en := got[0].Entries[i]
		if en["name"] != name || !strings.Contains(jsonOf(t, en["jsonPointers"]), "/spec/syncPolicy/automated") || !strings.Contains(jsonOf(t, en["jsonPointers"]), "paused-owner-hold") {
			t.Errorf("entry %d: %v", i, en)
		}
	}
}

// sameFields compares two decoded objects field by field and names each
// field that differs.
func sameFields(t *testing.T, what string, before, after any) {
	t.Helper()
	var walk func(path string, a, b any)
	walk = func(path string, a, b any) {
		am, aok := a.(map[string]any)
		bm, bok := b.(map[string]any)
		if aok && bok {
			for k := range am {
				walk(path+"."+k, am[k], bm[k])
			}
			for k := range bm {
				if _, ok := am[k]; !ok {
					t.Errorf("%s: %s%s added: %v", what, path, "."+k, bm[k])
				}
			}
			return
		}
		if !reflect.DeepEqual(normalizeJSON(a), normalizeJSON(b)) {
			t.Errorf("%s: %s is %v, was %v", what, path, b, a)
		}
	}
	walk("", normalizeJSON(before), normalizeJSON(after))
}
