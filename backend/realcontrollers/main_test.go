package realcontrollers

import (
	"context"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// The controller is started once for the package, on the shared control plane.
var real struct {
	once sync.Once
	argo *testargocd.ArgoCD
	err  error
}

func TestMain(m *testing.M) { testcluster.Main(m, testcluster.Options{}) }

// env is one test's view of the real Argo CD: its own destination namespace.
type env struct {
	t    *testing.T
	argo *testargocd.ArgoCD
	dyn  dynamic.Interface
	kube kubernetes.Interface
	exec *actions.Executor
	// cluster is driftdeck's connection to the test control plane.
	cluster *kube.Cluster
	actor   string
	dest    string
}

// sharedArgo is the package's real Argo CD, started at its first use.
func sharedArgo(tb testing.TB) *testargocd.ArgoCD {
	tb.Helper()
	c := testcluster.Shared(tb)
	real.once.Do(func() {
		if real.argo, real.err = testargocd.Start(c); real.err == nil {
			c.BeforeStop(real.argo.Stop)
		}
	})
	if real.err != nil {
		testargocd.Skip(tb, real.err)
	}
	return real.argo
}

func realArgo(t *testing.T) *env {
	t.Helper()
	c := testcluster.Shared(t)
	sharedArgo(t)
	kc, err := kube.NewCluster("test", c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	actor, err := kc.Access.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, argo: real.argo, dyn: kc.Dynamic, kube: kc.Kube, cluster: kc, actor: actor, dest: c.Namespace(t),
		exec: &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}}
}

// app creates an Application of the real controller reading the repo's
// folder named like the app, deploying into the test's namespace.
func (e *env) app(name string, repo *testargocd.Repo, syncPolicy map[string]any) {
	e.t.Helper()
	e.createApp(name, map[string]any{
		"project":     "default",
		"source":      map[string]any{"repoURL": repo.URL(), "path": name, "targetRevision": "main"},
		"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": e.dest},
		"syncPolicy":  syncPolicy,
	})
}

// createApp creates an Application with this spec, deleted when the test ends.
func (e *env) createApp(name string, spec map[string]any) {
	e.t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": name, "namespace": testargocd.Namespace},
		"spec":     spec,
	}}
	if _, err := e.dyn.Resource(argocd.Applications).Namespace(testargocd.Namespace).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		_ = e.dyn.Resource(argocd.Applications).Namespace(testargocd.Namespace).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

func (e *env) key(name string) model.Key {
	return model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: testargocd.Namespace, Name: name}
}

func (e *env) get(name string) map[string]any {
	e.t.Helper()
	o, err := e.dyn.Resource(argocd.Applications).Namespace(testargocd.Namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return o.Object
}

func (e *env) do(req actions.Request) *actions.Result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := e.exec.Execute(ctx, req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", req.Kind, req.Key.Ref(), err)
	}
	return res
}

// configValue is the live ConfigMap's value, "" when it does not exist.
func (e *env) configValue(name string) string { return configValue(e.kube, e.dest, name) }

func configValue(kc kubernetes.Interface, ns, name string) string {
	cm, err := kc.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	return cm.Data["value"]
}

func (e *env) waitFor(what string, cond func() (bool, string)) {
	e.t.Helper()
	waitFor(e.t, what, cond, func() string { return "controller log:\n" + e.argo.Log("application-controller") })
}

// waitFor polls cond until it holds. The deadline is generous: a busy
// 2-core machine runs the controllers and the apiserver at once. logs
// explains a failure.
func waitFor(t *testing.T, what string, cond func() (bool, string), logs func() string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		ok, now := cond()
		if ok {
			return
		}
		last = now
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("waited 90s for %s; last seen: %s\n%s", what, last, logs())
}

// holds checks that cond stays true for d (the controller had its chance).
func (e *env) holds(what string, d time.Duration, cond func() (bool, string)) {
	e.t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if ok, now := cond(); !ok {
			e.t.Fatalf("%s stopped holding: %s", what, now)
		}
	}
}

// refreshPending reports whether the Application still carries a refresh
// request: the controller removes it once that refresh's comparison is
// written, so a wait for the comparison a test asked for waits for this.
func refreshPending(obj map[string]any) bool {
	ann, _, _ := unstructured.NestedStringMap(obj, "metadata", "annotations")
	_, pending := ann[argocd.AnnotationRefresh]
	return pending
}

func str(obj map[string]any, path ...string) string {
	v, _, _ := unstructured.NestedString(obj, path...)
	return v
}

// try runs an action that may be refused; the error is returned, not fatal.
func (e *env) try(req actions.Request) error {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := e.exec.Execute(ctx, req)
	return err
}
