package realcontrollers

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
)

const serviceManifest = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
`

// outOfSync is the controller's own comparison: the resources it lists as
// OutOfSync in status.resources, as kind/name.
func outOfSync(app map[string]any) []string {
	res, _, _ := unstructured.NestedSlice(app, "status", "resources")
	var out []string
	for _, it := range res {
		r := it.(map[string]any)
		if r["status"] == "OutOfSync" {
			out = append(out, fmt.Sprintf("%s/%s", r["kind"], r["name"]))
		}
	}
	sort.Strings(out)
	return out
}

// changed is the local diff's answer: the objects a sync would change.
func changed(r *diff.Report) []string {
	var out []string
	for _, o := range r.Objects {
		if o.Change != diff.Unchanged {
			out = append(out, o.Key.Kind+"/"+o.Key.Name)
		}
	}
	sort.Strings(out)
	return out
}

func TestClusterRealArgoLocalDiffAgreesWithTheControllersComparison(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{
		"compared/keep.yaml":      testargocd.ConfigMap("keep", "same"),
		"compared/changed.yaml":   testargocd.ConfigMap("changed", "v1"),
		"compared/gone.yaml":      testargocd.ConfigMap("gone", "v1"),
		"compared/edited.yaml":    testargocd.ConfigMap("edited", "v1"),
		"compared/annotated.yaml": testargocd.ConfigMap("annotated", "v1"),
		"compared/svc.yaml":       serviceManifest,
	})
	e.app("compared", repo, map[string]any{})
	e.waitFor("the first comparison", func() (bool, string) {
		return str(e.get("compared"), "status", "sync", "revision") == v1, str(e.get("compared"), "status", "sync", "status")
	})
	e.do(actions.Request{Kind: actions.Sync, Key: e.key("compared"), Reason: "deploy v1", Revision: v1})
	e.synced("compared", v1)

	// Git moves (a change, an addition, a removal) and the live side does
	// too (a value edited by hand, an annotation another tool adds).
	repo.Commit("v2", map[string]string{
		"compared/changed.yaml": testargocd.ConfigMap("changed", "v2"),
		"compared/added.yaml":   testargocd.ConfigMap("added", "new"),
	})
	v2 := repo.Remove("v2 drops gone", "compared/gone.yaml")
	ctx := context.Background()
	for name, edit := range map[string]func(data, ann map[string]string){
		"edited":    func(data, _ map[string]string) { data["value"] = "edited by hand" },
		"annotated": func(_, ann map[string]string) { ann["example.com/owner"] = "another tool" },
	} {
		cm, err := e.kube.CoreV1().ConfigMaps(e.dest).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Annotations == nil {
			cm.Annotations = map[string]string{}
		}
		edit(cm.Data, cm.Annotations)
		if _, err := e.kube.CoreV1().ConfigMaps(e.dest).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	before := str(e.get("compared"), "status", "reconciledAt")
	time.Sleep(1100 * time.Millisecond) // reconciledAt has a resolution of seconds
	e.do(actions.Request{Kind: actions.HardRefresh, Key: e.key("compared")})
	e.waitFor("the controller's comparison at v2 after the edits", func() (bool, string) {
		o := e.get("compared")
		pending := refreshPending(o)
		return !pending && str(o, "status", "sync", "revision") == v2 && str(o, "status", "reconciledAt") != before,
			str(o, "status", "sync", "revision") + " at " + str(o, "status", "reconciledAt")
	})

	app := e.get("compared")
	localrendertest.Use(t)
	t0 := time.Now()
	res, err := (&argodiff.LocalSource{CacheDir: t.TempDir()}).Diff(ctx, app, e.cluster)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("local diff took %v", time.Since(t0).Round(time.Millisecond))
	if res.Revision != v2 {
		t.Errorf("the local diff rendered %s, the controller compared %s", res.Revision, v2)
	}
	controller, local := outOfSync(app), changed(res.Report)
	if strings.Join(controller, " ") != strings.Join(local, " ") {
		t.Errorf("the controller finds %v OutOfSync, the local diff changes %v", controller, local)
	}
	// Not only agreement: both see what changed, and not the annotation.
	want := "ConfigMap/added ConfigMap/changed ConfigMap/edited ConfigMap/gone"
	if got := strings.Join(controller, " "); got != want {
		t.Errorf("the controller's comparison: %s, want %s", got, want)
	}
}
