package realcontrollers

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testflux"
)

var gitRepositories = schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"}

// Flux's controllers are started once for the package too.
var realFlux struct {
	once sync.Once
	flux *testflux.Flux
	err  error
}

// fluxEnv is one test's view of the real Flux: its own namespace for the
// sources, the Kustomizations and what they apply.
type fluxEnv struct {
	t    *testing.T
	flux *testflux.Flux
	dyn  dynamic.Interface
	kube kubernetes.Interface
	exec *actions.Executor
	ns   string
}

func realFluxEnv(t *testing.T) *fluxEnv {
	t.Helper()
	c := testcluster.Shared(t)
	realFlux.once.Do(func() {
		realFlux.err = fmt.Errorf("starting Flux failed in an earlier test")
		t0 := time.Now()
		if realFlux.flux, realFlux.err = testflux.Start(t, c); realFlux.err == nil {
			c.BeforeStop(realFlux.flux.Stop)
			t.Logf("Flux's controllers started in %v", time.Since(t0).Round(time.Millisecond))
		}
	})
	if realFlux.err != nil {
		testflux.Skip(t, realFlux.err)
	}
	kc, err := kube.NewCluster("test", c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	return &fluxEnv{t: t, flux: realFlux.flux, dyn: kc.Dynamic, kube: kc.Kube, ns: c.Namespace(t),
		exec: &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}}
}

// source creates a GitRepository of the served repo's main branch. The
// interval is long: the tests ask for every reconcile they expect.
func (e *fluxEnv) source(name string, repo *testargocd.Repo) {
	e.t.Helper()
	e.create(gitRepositories, map[string]any{
		"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "GitRepository",
		"metadata": map[string]any{"name": name, "namespace": e.ns},
		"spec": map[string]any{"url": testflux.ServeGit(e.t, repo.Dir()), "interval": "1h",
			"ref": map[string]any{"branch": "main"}},
	})
}

// kustomization creates a Kustomization applying path of the source into
// the test's namespace.
func (e *fluxEnv) kustomization(name, source, path string) {
	e.t.Helper()
	e.create(flux.Kustomizations[0], map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"name": name, "namespace": e.ns},
		"spec": map[string]any{
			"interval": "1h", "path": path, "prune": true, "targetNamespace": e.ns,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": source},
		},
	})
}

func (e *fluxEnv) create(gvr schema.GroupVersionResource, obj map[string]any) {
	e.t.Helper()
	if _, err := e.dyn.Resource(gvr).Namespace(e.ns).Create(context.Background(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *fluxEnv) get(gvr schema.GroupVersionResource, name string) map[string]any {
	e.t.Helper()
	o, err := e.dyn.Resource(gvr).Namespace(e.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return o.Object
}

func (e *fluxEnv) key(name string) model.Key {
	return model.Key{Context: "test", Engine: model.EngineKustomization, Namespace: e.ns, Name: name}
}

// ready reads the Ready condition: its status and reason.
func ready(obj map[string]any) (string, string) {
	conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			return fmt.Sprint(m["status"]), fmt.Sprint(m["reason"])
		}
	}
	return "", ""
}

// applied waits until the Kustomization is Ready with rev applied.
func (e *fluxEnv) applied(name, rev string) {
	e.t.Helper()
	e.waitFor(name+" Ready at "+rev, func() (bool, string) {
		o := e.get(flux.Kustomizations[0], name)
		status, reason := ready(o)
		got := str(o, "status", "lastAppliedRevision")
		return status == "True" && got == rev, fmt.Sprintf("Ready=%s (%s), applied %s", status, reason, got)
	})
}

func (e *fluxEnv) configValue(name string) string { return configValue(e.kube, e.ns, name) }

func (e *fluxEnv) waitFor(what string, cond func() (bool, string)) {
	e.t.Helper()
	waitFor(e.t, what, cond, e.flux.Logs)
}
