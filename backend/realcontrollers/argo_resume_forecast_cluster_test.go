package realcontrollers

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/localrender/localrendertest"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/undo"
)

const webDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: registry.example.com/web:1.0
`

// localDiffs diffs the env's Applications by a local render, as driftdeck
// does without an Argo CD API server.
type localDiffs struct {
	e   *env
	src *argodiff.LocalSource
}

func (d localDiffs) Diff(ctx context.Context, k model.Key) (*argodiff.Result, error) {
	return d.src.Diff(ctx, d.e.get(k.Name), d.e.cluster)
}

func TestClusterRealArgoAResumeListsTheHandFixSelfHealThenReverts(t *testing.T) {
	e := realArgo(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"fixed/web.yaml": webDeployment})
	e.app("fixed", repo, autoSync(true))
	e.synced("fixed", v1)
	e.do(actions.Request{Kind: actions.PauseSelfHeal, Key: e.key("fixed"), Reason: "INC-7: scaled web down by hand"})
	// A sync still running would apply web again over the hand fix: the
	// app reads Synced before its first operation has finished.
	e.waitFor("no operation running", func() (bool, string) {
		o := e.get("fixed")
		_, requested := o["operation"]
		phase := str(o, "status", "operationState", "phase")
		return !requested && phase != "" && phase != "Running" && phase != "Terminating", phase
	})

	// The hand fix: web scaled to zero, and an annotation the source does
	// not set (self-heal leaves that one alone).
	ctx := context.Background()
	handFix := `{"metadata":{"annotations":{"example.com/paged":"INC-7"}},"spec":{"replicas":0}}`
	if _, err := e.kube.AppsV1().Deployments(e.dest).Patch(ctx, "web", types.MergePatchType, []byte(handFix), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	before := str(e.get("fixed"), "status", "reconciledAt")
	time.Sleep(1100 * time.Millisecond) // reconciledAt has a resolution of seconds
	e.do(actions.Request{Kind: actions.HardRefresh, Key: e.key("fixed")})
	e.waitFor("the controller to compare the hand fix", func() (bool, string) {
		o := e.get("fixed")
		return str(o, "status", "reconciledAt") != before && strings.Join(outOfSync(o), " ") == "Deployment/web", str(o, "status", "sync", "status")
	})

	tctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	plan, err := e.exec.Plan(tctx, actions.Request{Kind: actions.Resume, Key: e.key("fixed"), Reason: "INC-7 closed"})
	if err != nil {
		t.Fatal(err)
	}
	localrendertest.Use(t)
	f := undo.Of(tctx, localDiffs{e, &argodiff.LocalSource{CacheDir: t.TempDir()}}, plan)
	lines := f.Lines(cmdline.Origin{})
	want := []string{"apps/Deployment/" + e.dest + "/web: reverted", "  spec.replicas: 0 → 2"}
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "self-heal is back") || strings.Join(lines[1:], "\n") != strings.Join(want, "\n") {
		t.Fatalf("the forecast:\n%s\nwant after its first line:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	if _, err := e.exec.Send(tctx, plan); err != nil {
		t.Fatal(err)
	}
	replicas := func() (int32, map[string]string) {
		d, err := e.kube.AppsV1().Deployments(e.dest).Get(ctx, "web", metav1.GetOptions{})
		if err != nil || d.Spec.Replicas == nil {
			return -1, nil
		}
		return *d.Spec.Replicas, d.Annotations
	}
	e.waitFor("self-heal to revert the field the forecast named", func() (bool, string) {
		n, _ := replicas()
		return n == 2, fmt.Sprint("replicas ", n)
	})
	// What it did not name, self-heal left.
	e.holds("the annotation the forecast did not name", 6*time.Second, func() (bool, string) {
		_, ann := replicas()
		return ann["example.com/paged"] == "INC-7", "annotation " + ann["example.com/paged"]
	})
}
