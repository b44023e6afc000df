package realcontrollers

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/testargocd"
)

// TestClusterRealApplicationSetControllerKeepsThePauseOfItsChild runs the
// real argocd-applicationset-controller (v3.3.0) with the application
// controller: a pause of a generated Application by hand is reverted, a
// driftdeck pause holds through the ApplicationSet controller's reconciles
// and across a new commit, and resume puts the ApplicationSet and the child
// back exactly, after which the child auto-syncs the new commit.
func TestClusterRealApplicationSetControllerKeepsThePauseOfItsChild(t *testing.T) {
	e := realArgo(t)
	if err := e.argo.StartApplicationSetController(); err != nil {
		t.Fatal(err)
	}
	logs := func() string { return "applicationset-controller log:\n" + e.argo.Log("applicationset-controller") }
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"web/cm.yaml": testargocd.ConfigMap("appset-web", "v1")})
	child, setName := "as-web-"+e.dest[len(e.dest)-5:], "as-"+e.dest[len(e.dest)-5:]
	sets := e.dyn.Resource(argocd.ApplicationSets).Namespace(testargocd.Namespace)
	apps := e.dyn.Resource(argocd.Applications).Namespace(testargocd.Namespace)
	set := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(`{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationSet","metadata":{"name":"`+setName+`"},
		"spec":{"goTemplate":true,"generators":[{"list":{"elements":[{"name":"`+child+`"}]}}],
			"ignoreApplicationDifferences":[{"name":"somebody-else","jsonPointers":["/spec/source/targetRevision"]}],
			"template":{"metadata":{"name":"{{.name}}","labels":{"team":"t"}},
				"spec":{"project":"default","source":{"repoURL":"`+repo.URL()+`","path":"web","targetRevision":"main"},
					"destination":{"server":"https://kubernetes.default.svc","namespace":"`+e.dest+`"},
					"syncPolicy":{"automated":{"prune":true,"selfHeal":true}}}}}}`), &set.Object); err != nil {
		t.Fatal(err)
	}
	if _, err := sets.Create(t.Context(), set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// No garbage collector runs here: the child goes with its ApplicationSet by hand.
	t.Cleanup(func() {
		_ = sets.Delete(context.Background(), setName, metav1.DeleteOptions{})
		_ = apps.Delete(context.Background(), child, metav1.DeleteOptions{})
	})
	waitFor(t, "the ApplicationSet controller to generate "+child, func() (bool, string) {
		_, err := apps.Get(t.Context(), child, metav1.GetOptions{})
		return err == nil, "not yet"
	}, logs)
	e.synced(child, v1)

	// A reconcile after a moment is seen when a hand edit of the child's
	// label, which the controller owns, is undone.
	reconciled := func() {
		t.Helper()
		if _, err := apps.Patch(t.Context(), child, types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"edited"}}}`), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the ApplicationSet controller to reconcile "+child, func() (bool, string) {
			l := e.get(child)["metadata"].(map[string]any)["labels"].(map[string]any)["team"]
			return l == "t", "label team=" + l.(string)
		}, logs)
	}
	autoSyncOn := func() bool { return argocd.Convert("", e.get(child)).Argo.AutoSync }

	if _, err := apps.Patch(t.Context(), child, types.JSONPatchType, []byte(`[{"op":"remove","path":"/spec/syncPolicy/automated"}]`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the controller to revert a pause by hand", func() (bool, string) { return autoSyncOn(), "still paused" }, logs)

	setBefore, err := sets.Get(t.Context(), setName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	appBefore := e.get(child)
	res := e.do(actions.Request{Kind: actions.Pause, Key: e.key(child), Reason: "INC-3"})
	if len(res.Plan.Also) != 1 || !strings.Contains(res.Plan.Also[0].Object, "applicationset/argocd/"+setName) {
		t.Fatalf("the pause must write the ApplicationSet: %+v", res.Plan.Also)
	}
	reconciled()
	if autoSyncOn() {
		t.Fatal("the real ApplicationSet controller reverted driftdeck's pause")
	}
	if p := argocd.Convert("", e.get(child)).Pause; p == nil || p.Reason != "INC-3" {
		t.Fatalf("the pause record did not survive the reconcile: %v", e.get(child)["metadata"])
	}
	repo.Commit("v2", map[string]string{"web/cm.yaml": testargocd.ConfigMap("appset-web", "v2")})
	e.do(actions.Request{Kind: actions.HardRefresh, Key: e.key(child)})
	e.holds("the pause across a new commit", 6*time.Second, func() (bool, string) {
		return e.configValue("appset-web") == "v1" && !autoSyncOn(), "live " + e.configValue("appset-web")
	})

	e.do(actions.Request{Kind: actions.Resume, Key: e.key(child), Reason: "INC-3 over"})
	reconciled()
	setAfter, err := sets.Get(t.Context(), setName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(setBefore.Object["spec"], setAfter.Object["spec"]) {
		t.Errorf("the ApplicationSet's spec is not as before:\nbefore %v\nafter  %v", setBefore.Object["spec"], setAfter.Object["spec"])
	}
	appAfter := e.get(child)
	if !reflect.DeepEqual(appBefore["spec"], appAfter["spec"]) {
		t.Errorf("the Application's spec is not as before:\nbefore %v\nafter  %v", appBefore["spec"], appAfter["spec"])
	}
	if ann, _, _ := unstructured.NestedStringMap(appAfter, "metadata", "annotations"); len(ann) > 0 && ann["driftdeck.io/paused-by"] != "" {
		t.Errorf("the pause record is still there: %v", ann)
	}
	e.waitFor("auto-sync to the new commit after resume", func() (bool, string) { return e.configValue("appset-web") == "v2", e.configValue("appset-web") })
}
