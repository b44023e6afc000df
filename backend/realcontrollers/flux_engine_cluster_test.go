package realcontrollers

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testflux"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

func (e *fluxEnv) do(req actions.Request) error {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := e.exec.Execute(ctx, req)
	return err
}

// annotate writes a reconcile request by hand (what a webhook receiver or
// `flux reconcile` would write) and returns its token.
func (e *fluxEnv) annotate(gvr schema.GroupVersionResource, name string) string {
	e.t.Helper()
	token := time.Now().UTC().Format(time.RFC3339Nano)
	body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{flux.AnnotationRequestedAt: token}}})
	if _, err := e.dyn.Resource(gvr).Namespace(e.ns).Patch(context.Background(), name, types.MergePatchType, body, metav1.PatchOptions{}); err != nil {
		e.t.Fatal(err)
	}
	return token
}

// artifactAt waits until the source has fetched rev.
func (e *fluxEnv) artifactAt(name, rev string) {
	e.t.Helper()
	e.waitFor("the source's artifact at "+rev, func() (bool, string) {
		got := str(e.get(gitRepositories, name), "status", "artifact", "revision")
		return got == rev, got
	})
}

// handled waits until the object shows token as handled.
func (e *fluxEnv) handled(gvr schema.GroupVersionResource, name, token string) {
	e.t.Helper()
	e.waitFor("the request "+token+" handled", func() (bool, string) {
		got := str(e.get(gvr, name), "status", "lastHandledReconcileAt")
		return got == token, got
	})
}

func requestedAt(obj map[string]any) string {
	ann, _, _ := unstructured.NestedStringMap(obj, "metadata", "annotations")
	return ann[flux.AnnotationRequestedAt]
}

func TestClusterRealFluxSuspendHoldsAcrossANewCommitAndResumeApplies(t *testing.T) {
	e := realFluxEnv(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"app/cm.yaml": testargocd.ConfigMap("suspended", "v1")})
	e.source("suspended", repo)
	e.kustomization("suspended", "suspended", "./app")
	e.applied("suspended", testflux.Revision("main", v1))

	if err := e.do(actions.Request{Kind: actions.Pause, Key: e.key("suspended"), Reason: "INC-7: hold deploys"}); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := unstructured.NestedBool(e.get(flux.Kustomizations[0], "suspended"), "spec", "suspend"); !s {
		t.Fatal("the pause did not set spec.suspend")
	}
	v2 := repo.Commit("v2", map[string]string{"app/cm.yaml": testargocd.ConfigMap("suspended", "v2")})
	// The source moves on by itself (here at once instead of its interval);
	// kustomize-controller watches its artifact.
	e.annotate(gitRepositories, "suspended")
	e.artifactAt("suspended", testflux.Revision("main", v2))

	// driftdeck refuses a reconcile of the suspended unit, nothing written...
	err := e.do(actions.Request{Kind: actions.Refresh, Key: e.key("suspended")})
	if !writeguard.IsRefusal(err) {
		t.Fatalf("a reconcile of a suspended Kustomization: %v, want a refusal", err)
	}
	if got := requestedAt(e.get(flux.Kustomizations[0], "suspended")); got != "" {
		t.Fatalf("the refused reconcile wrote %s", got)
	}
	// ...because the controller, asked by hand, marks it handled and applies nothing.
	token := e.annotate(flux.Kustomizations[0], "suspended")
	e.handled(flux.Kustomizations[0], "suspended", token)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		o := e.get(flux.Kustomizations[0], "suspended")
		if got := str(o, "status", "lastAppliedRevision"); got != testflux.Revision("main", v1) || e.configValue("suspended") != "v1" {
			t.Fatalf("the suspension stopped holding: applied %s, live %q", got, e.configValue("suspended"))
		}
	}

	t0 := time.Now()
	if err := e.do(actions.Request{Kind: actions.Resume, Key: e.key("suspended"), Reason: "INC-7 over"}); err != nil {
		t.Fatal(err)
	}
	e.applied("suspended", testflux.Revision("main", v2))
	t.Logf("resume applied the new commit in %v", time.Since(t0).Round(time.Millisecond))
	if got := e.configValue("suspended"); got != "v2" {
		t.Errorf("after resume the live value is %q, want v2", got)
	}
}

func TestClusterRealFluxReconcileWithItsSourceIsHandledWithTheToken(t *testing.T) {
	e := realFluxEnv(t)
	repo := testargocd.NewRepo(t)
	v1 := repo.Commit("v1", map[string]string{"app/cm.yaml": testargocd.ConfigMap("requested", "v1")})
	e.source("requested", repo)
	e.kustomization("requested", "requested", "./app")
	e.applied("requested", testflux.Revision("main", v1))

	// A plain reconcile: handled with driftdeck's token, nothing new applied.
	if err := e.do(actions.Request{Kind: actions.Refresh, Key: e.key("requested")}); err != nil {
		t.Fatal(err)
	}
	token := requestedAt(e.get(flux.Kustomizations[0], "requested"))
	if token == "" {
		t.Fatal("the reconcile wrote no requestedAt")
	}
	e.handled(flux.Kustomizations[0], "requested", token)

	// With its source: the new commit is fetched and applied in one request.
	v2 := repo.Commit("v2", map[string]string{"app/cm.yaml": testargocd.ConfigMap("requested", "v2")})
	t0 := time.Now()
	if err := e.do(actions.Request{Kind: actions.Refresh, Key: e.key("requested"), WithSource: true}); err != nil {
		t.Fatal(err)
	}
	o := e.get(flux.Kustomizations[0], "requested")
	token2, srcToken := requestedAt(o), requestedAt(e.get(gitRepositories, "requested"))
	if token2 == "" || token2 == token || srcToken == "" {
		t.Fatalf("tokens after a reconcile with source: unit %q (was %q), source %q", token2, token, srcToken)
	}
	e.handled(gitRepositories, "requested", srcToken)
	e.handled(flux.Kustomizations[0], "requested", token2)
	e.applied("requested", testflux.Revision("main", v2))
	t.Logf("reconcile with source applied the new commit in %v", time.Since(t0).Round(time.Millisecond))
	if got := e.configValue("requested"); got != "v2" {
		t.Errorf("live value %q, want v2", got)
	}
}
