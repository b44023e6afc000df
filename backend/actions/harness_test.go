package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/audit/audittest"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

var (
	applicationGVK = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Application"}
	stackGVK       = schema.GroupVersionKind{Group: "pulumi.com", Version: "v1", Kind: "Stack"}
)

// env is one real control plane with one CRD generation installed.
type env struct {
	t     *testing.T
	c     *testcluster.Cluster
	dyn   dynamic.Interface
	ns    string
	exec  *Executor
	actor string
	audit string
}

// forEachGeneration runs fn on a control plane per upstream CRD set serving
// gvk (Argo CD 2.14 and 3.5, Pulumi operator 1.16 and 2.9), plus our own.
func forEachGeneration(t *testing.T, gvk schema.GroupVersionKind, fn func(e *env, set string)) {
	sets := testcluster.UpstreamCRDSetsServing(t, gvk)
	own, err := testcluster.OwnCRDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(sets, own) {
		t.Run(s.Name, func(t *testing.T) {
			c := testcluster.SharedServing(t, []testcluster.CRDSet{s})
			fn(newEnv(t, c, c.Config()), s.Name)
		})
	}
}

func newEnv(t *testing.T, c *testcluster.Cluster, cfg *rest.Config) *env {
	kc, err := kube.NewCluster("test", cfg, "default")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	log, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	actor, err := kc.Access.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, c: c, dyn: kc.Dynamic, actor: actor, audit: path}
	e.exec = &Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }, Audit: log}
	return e
}

// sub runs a subtest in a fresh namespace of the same control plane.
func (e *env) sub(name string, fn func(t *testing.T, e *env)) {
	e.t.Run(name, func(t *testing.T) {
		child := *e
		child.t = t
		child.ns = e.c.Namespace(t)
		fn(t, &child)
	})
}

func (e *env) key(engine model.Engine, name string) model.Key {
	return model.Key{Context: "test", Engine: engine, Namespace: e.ns, Name: name}
}

func (e *env) create(gvr schema.GroupVersionResource, format string, args ...any) *unstructured.Unstructured {
	e.t.Helper()
	o := &unstructured.Unstructured{}
	text := fmt.Sprintf(format, args...)
	if err := json.Unmarshal([]byte(text), &o.Object); err != nil {
		e.t.Fatalf("bad object: %v\n%s", err, text)
	}
	o.SetNamespace(e.ns)
	status, hasStatus := o.Object["status"]
	out, err := e.dyn.Resource(gvr).Namespace(e.ns).Create(context.Background(), o, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatalf("creating %s: %v", o.GetName(), err)
	}
	if hasStatus && (gvr == pulumiop.Stacks || gvr == pulumiop.Updates) {
		out.Object["status"] = status
		if out, err = e.dyn.Resource(gvr).Namespace(e.ns).UpdateStatus(context.Background(), out, metav1.UpdateOptions{}); err != nil {
			e.t.Fatalf("status of %s: %v", o.GetName(), err)
		}
	}
	return out
}

func (e *env) get(gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
	e.t.Helper()
	o, err := e.dyn.Resource(gvr).Namespace(e.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return o
}

func (e *env) app(name, policy, status string, top ...string) *unstructured.Unstructured {
	extra := ""
	if len(top) > 0 {
		extra = "," + top[0]
	}
	return e.create(argocd.Applications, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":%q},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/apps.git","path":"web","targetRevision":"main"},
		"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},"syncPolicy":{%s}}%s,"status":{%s}}`, name, policy, extra, status)
}

func (e *env) run(req Request) (*Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return e.exec.Execute(ctx, req)
}

// send writes a plan as shown.
func (e *env) send(p *Plan) (*Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return e.exec.Send(ctx, p)
}

// planned plans the request, failing the test when it cannot be.
func (e *env) planned(req Request) *Plan {
	e.t.Helper()
	p, err := e.exec.Plan(context.Background(), req)
	if err != nil {
		e.t.Fatalf("planning %s: %v", req.Kind, err)
	}
	return p
}

// mustSend sends the plan as shown, which must be written and verified.
func (e *env) mustSend(p *Plan) *Result {
	e.t.Helper()
	res, err := e.send(p)
	if err != nil {
		e.t.Fatalf("%s: %v", p.Request.Kind, err)
	}
	if !res.Verified {
		e.t.Fatalf("%s not verified: %v", p.Request.Kind, res.Warnings)
	}
	return res
}

func (e *env) mustRun(req Request) *Result {
	e.t.Helper()
	res, err := e.run(req)
	if err != nil {
		e.t.Fatalf("%s: %v", req.Kind, err)
	}
	if !res.Verified {
		e.t.Fatalf("%s not verified: %v", req.Kind, res.Warnings)
	}
	return res
}

// events lists the reasons and messages of the Events on an object.
func (e *env) events(name string) []string {
	e.t.Helper()
	list, err := e.c.Kube(e.t).CoreV1().Events(e.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, ev := range list.Items {
		if ev.InvolvedObject.Name == name {
			out = append(out, ev.Reason+": "+ev.Message)
		}
	}
	return out
}

// auditLines reads the audit log's lines about units of this env's
// namespace (subtests share the log).
func (e *env) auditLines() []audit.Entry {
	e.t.Helper()
	var out []audit.Entry
	for _, en := range audittest.Entries(e.t, e.audit) {
		if e.ns == "" || strings.Contains(en.Unit, "/"+e.ns+"/") {
			out = append(out, en)
		}
	}
	return out
}

func jsonOf(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func contains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
