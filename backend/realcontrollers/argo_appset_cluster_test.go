package realcontrollers

import (
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
)

// TestClusterRealApplicationSetControllerKeepsThePauseOfItsChild runs the
// real argocd-applicationset-controller (v3.3.0) with the application
// controller: a pause of a generated Application by hand is reverted, a
// driftdeck pause holds through the ApplicationSet controller's reconciles
// and across a new commit, and resume puts the ApplicationSet and the child
// back exactly, after which the child auto-syncs the new commit.
func TestClusterRealApplicationSetControllerKeepsThePauseOfItsChild(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"web/cm.yaml": testargocd.ConfigMap("appset-web", "v1")})
	s := realAppSetSide(t, e, repo, 1)
	e.synced(s.child, v1)
	autoSyncOn := func() bool { return argocd.Convert("", s.getApp()).Argo.AutoSync }

	s.patchApp(types.JSONPatchType, `[{"op":"remove","path":"/spec/syncPolicy/automated"}]`)
	waitFor(t, "the controller to revert a pause by hand", func() (bool, string) { return autoSyncOn(), "still paused" }, s.logs)

	setBefore, appBefore := s.getSet(), s.getApp()
	res := e.do(actions.Request{Kind: actions.Pause, Key: s.key(), Reason: "INC-3"})
	if len(res.Plan.Also) != 1 || res.Plan.Also[0].Object != "applicationset/argocd/"+s.set {
		t.Fatalf("the pause must write the ApplicationSet: %+v", res.Plan.Also)
	}
	s.reconciled()
	if autoSyncOn() {
		t.Fatal("the real ApplicationSet controller reverted driftdeck's pause")
	}
	if p := argocd.Convert("", s.getApp()).Pause; p == nil || p.Reason != "INC-3" {
		t.Fatalf("the pause record did not survive the reconcile: %v", s.getApp()["metadata"])
	}
	repo.Commit("v2", map[string]string{"web/cm.yaml": testargocd.ConfigMap("appset-web", "v2")})
	e.do(actions.Request{Kind: actions.HardRefresh, Key: s.key()})
	e.holds("the pause across a new commit", 6*time.Second, func() (bool, string) {
		return e.configValue("appset-web") == "v1" && !autoSyncOn(), "live " + e.configValue("appset-web")
	})

	e.do(actions.Request{Kind: actions.Resume, Key: s.key(), Reason: "INC-3 over"})
	s.reconciled()
	if after := s.getSet(); !reflect.DeepEqual(setBefore["spec"], after["spec"]) {
		t.Errorf("the ApplicationSet's spec is not as before:\nbefore %v\nafter  %v", setBefore["spec"], after["spec"])
	}
	if after := s.getApp(); !reflect.DeepEqual(appBefore["spec"], after["spec"]) {
		t.Errorf("the Application's spec is not as before:\nbefore %v\nafter  %v", appBefore["spec"], after["spec"])
	}
	e.waitFor("auto-sync to the new commit after resume", func() (bool, string) { return e.configValue("appset-web") == "v2", e.configValue("appset-web") })
}

// appSetObserved is what driftdeck reads of an ApplicationSet's child, and
// of the ApplicationSet's ignore rules, after a step and a reconcile.
type appSetObserved struct {
	AutoSync, SelfHeal, Paused bool
	Annotations                string // the keys, sorted
	Labels                     string
	Entries                    int
	SpecAsGenerated            bool
}

// TestClusterApplicationSetControllersAgree holds the simulated
// ApplicationSet controller (the demo's and the action tests') to the real
// one: the same steps end with the same fields on both.
func TestClusterApplicationSetControllersAgree(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	repo.Commit("v1", map[string]string{"web/cm.yaml": testargocd.ConfigMap("appset-agree", "v1")})
	type step struct {
		name string
		do   func(s *appSetSide)
	}
	steps := []step{
		{"generated", func(*appSetSide) {}},
		{"paused and annotated by hand", func(s *appSetSide) {
			s.patchApp(types.JSONPatchType, `[{"op":"remove","path":"/spec/syncPolicy/automated"}]`)
			s.patchApp(types.MergePatchType, `{"metadata":{"annotations":{"note":"by hand"}}}`)
		}},
		{"paused by driftdeck", func(s *appSetSide) { e.do(actions.Request{Kind: actions.Pause, Key: s.key(), Reason: "INC-4"}) }},
		{"resumed by driftdeck", func(s *appSetSide) { e.do(actions.Request{Kind: actions.Resume, Key: s.key(), Reason: "INC-4 over"}) }},
	}
	run := func(s *appSetSide) []appSetObserved {
		generated := s.getApp()["spec"]
		var out []appSetObserved
		for _, st := range steps {
			st.do(s)
			s.reconciled()
			app := s.getApp()
			u := argocd.Convert("", app)
			ann, _, _ := unstructured.NestedStringMap(app, "metadata", "annotations")
			labels, _, _ := unstructured.NestedStringMap(app, "metadata", "labels")
			entries, _, _ := unstructured.NestedSlice(s.getSet(), "spec", "ignoreApplicationDifferences")
			out = append(out, appSetObserved{AutoSync: u.Argo.AutoSync, SelfHeal: u.Argo.SelfHeal, Paused: u.Pause != nil,
				Annotations: keys(ann), Labels: keys(labels), Entries: len(entries), SpecAsGenerated: reflect.DeepEqual(generated, app["spec"])})
		}
		return out
	}
	upstream := run(realAppSetSide(t, e, repo, 1))
	simulated := run(simAppSetSide(t, e, repo.URL()))
	for i, st := range steps {
		if upstream[i] != simulated[i] {
			t.Errorf("%s: the real controller left %+v, the simulated one %+v", st.name, upstream[i], simulated[i])
		}
	}
	if !upstream[1].AutoSync || upstream[2].AutoSync || !upstream[2].Paused || !upstream[3].SpecAsGenerated {
		t.Errorf("the real controller's steps: %+v", upstream)
	}
}

func keys(m map[string]string) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// TestClusterRealApplicationSetControllerKeepsABulkFreezeOfItsChildren
// freezes four children of one ApplicationSet at once under the real
// argocd-applicationset-controller: their entries go in one patch before
// any child is paused, every child is still paused after the controller
// reconciled, and the thaw puts the ApplicationSet and every child back
// exactly.
func TestClusterRealApplicationSetControllerKeepsABulkFreezeOfItsChildren(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	repo.Commit("v1", map[string]string{"web/cm.yaml": testargocd.ConfigMap("appset-bulk", "v1")})
	s := realAppSetSide(t, e, repo, 4)
	s.reconciled()
	setBefore := s.getSet()
	appsBefore := map[string]any{}
	var keys []model.Key
	for _, c := range s.children {
		appsBefore[c] = s.get(s.apps(), c)["spec"]
		keys = append(keys, s.keyOf(c))
	}
	e.exec.Settle = 3 * time.Second
	defer func() { e.exec.Settle = 0 }()
	for _, o := range e.exec.Bulk(t.Context(), actions.BulkRequest{Kind: actions.Pause, Keys: keys, Reason: "INC-5 freeze"}) {
		if o.Outcome != actions.OutcomeApplied {
			t.Fatalf("freeze of %s: %s %s\n%s", o.Key.Ref(), o.Outcome, o.Why, s.logs())
		}
	}
	s.reconciled()
	for _, c := range s.children {
		u := argocd.Convert("", s.get(s.apps(), c))
		if u.Argo.AutoSync || u.Pause == nil || u.Pause.Reason != "INC-5 freeze" {
			t.Errorf("%s is not paused after the real controller reconciled: auto-sync %v, pause %+v", c, u.Argo.AutoSync, u.Pause)
		}
	}
	if entries, _, _ := unstructured.NestedSlice(s.getSet(), "spec", "ignoreApplicationDifferences"); len(entries) != 1+len(s.children) {
		t.Errorf("want somebody else's entry and one per child, got %v", entries)
	}

	for _, o := range e.exec.Bulk(t.Context(), actions.BulkRequest{Kind: actions.Resume, Keys: keys, Reason: "INC-5 over"}) {
		if o.Outcome != actions.OutcomeApplied {
			t.Fatalf("thaw of %s: %s %s", o.Key.Ref(), o.Outcome, o.Why)
		}
	}
	s.reconciled()
	if after := s.getSet(); !reflect.DeepEqual(setBefore["spec"], after["spec"]) {
		t.Errorf("the ApplicationSet's spec is not as before:\nbefore %v\nafter  %v", setBefore["spec"], after["spec"])
	}
	for _, c := range s.children {
		app := s.get(s.apps(), c)
		if !reflect.DeepEqual(appsBefore[c], app["spec"]) {
			t.Errorf("%s's spec is not as before:\nbefore %v\nafter  %v", c, appsBefore[c], app["spec"])
		}
		if u := argocd.Convert("", app); !u.Argo.AutoSync || u.Pause != nil {
			t.Errorf("%s is not resumed: %+v", c, u.Pause)
		}
	}
}
