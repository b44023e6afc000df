package changereq

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/patchrec"
	"github.com/driftdeck/driftdeck/backend/testkit/testchangereq"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

const agentUser = testchangereq.AgentUser

// world is a namespace of the shared control plane with deploy/ and
// deploy/change-requests/ applied as shipped, two people who may ask and
// review there (alice, bob), a third reviewer (carol) and the agent.
type world struct {
	t     *testing.T
	c     *testcluster.Cluster
	ns    string
	admin dynamic.Interface
	// people, by name: their plain clients and driftdeck's clusters.
	people map[string]*person
	agent  *rest.Config
}

type person struct {
	name  string
	cfg   *rest.Config
	dyn   dynamic.Interface
	kube  *kube.Cluster
	exec  *actions.Executor
	audit string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	c := testcluster.Shared(t)
	testchangereq.Install(t, c)
	w := &world{t: t, c: c, ns: c.Namespace(t), admin: dynamic.NewForConfigOrDie(c.Config()), people: map[string]*person{}}
	read := []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "list", "watch"}}}
	for _, name := range []string{"alice", "bob", "carol"} {
		cfg := c.UserConfig(t, name, read, w.ns)
		testchangereq.Bind(t, c, w.ns, name, "driftdeck-change-requester")
		testchangereq.Bind(t, c, w.ns, name, "driftdeck-change-reviewer")
		w.people[name] = w.personOf(name, cfg)
	}
	w.agent = testchangereq.AgentConfig(t, c)
	return w
}

func (w *world) personOf(name string, cfg *rest.Config) *person {
	w.t.Helper()
	kc, err := kube.NewCluster("test", cfg, w.ns)
	if err != nil {
		w.t.Fatal(err)
	}
	path := filepath.Join(w.t.TempDir(), name+"-audit.jsonl")
	log, err := audit.Open(path)
	if err != nil {
		w.t.Fatal(err)
	}
	return &person{name: name, cfg: cfg, dyn: dynamic.NewForConfigOrDie(cfg), kube: kc, audit: path,
		exec: &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }, Audit: log}}
}

// rawRequest is a request object as any client could write it.
func (w *world) rawRequest(requester, name string) *unstructured.Unstructured {
	return testchangereq.Raw(w.ns, requester, name)
}

// app creates an Argo CD Application with automated sync as an
// administrator.
func (w *world) app(name string) *unstructured.Unstructured {
	w.t.Helper()
	var obj map[string]any
	text := fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":%q,"namespace":%q},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/apps.git","path":"web","targetRevision":"main"},
		"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},"syncPolicy":{"automated":{"selfHeal":true}}}}`, name, w.ns)
	if err := json.Unmarshal([]byte(text), &obj); err != nil {
		w.t.Fatal(err)
	}
	out, err := w.admin.Resource(argocd.Applications).Namespace(w.ns).Create(context.Background(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	return out
}

func (w *world) getApp(name string) *unstructured.Unstructured {
	w.t.Helper()
	o, err := w.admin.Resource(argocd.Applications).Namespace(w.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	return o
}

func (w *world) key(name string) model.Key {
	return model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: w.ns, Name: name}
}

// ask plans a pause of the app as the person and stores it in a request.
func (w *world) ask(who, app string, a Ask) *ChangeRequest {
	w.t.Helper()
	p := w.people[who]
	ctx := context.Background()
	plan, err := p.exec.Plan(ctx, actions.Request{Kind: actions.Pause, Key: w.key(app), Reason: "INC-7: hold the rollout"})
	if err != nil {
		w.t.Fatal(err)
	}
	id, err := p.kube.Access.Identity(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	a.Requester = id
	cr, err := Create(ctx, p.dyn, plan, a, time.Now())
	if err != nil {
		w.t.Fatal(err)
	}
	return cr
}

func (w *world) review(who string, cr *ChangeRequest, decision, reason string) (*ChangeRequest, error) {
	return AddReview(context.Background(), w.people[who].dyn, cr, Review{User: who, Decision: decision, Reason: reason}, time.Now())
}

func (w *world) get(cr *ChangeRequest) *ChangeRequest {
	w.t.Helper()
	got, err := Get(context.Background(), w.admin, cr.Namespace, cr.Name)
	if err != nil {
		w.t.Fatal(err)
	}
	return got
}

// agentApplier is an agent's applier for the namespace whose client
// records every PATCH it sends.
func (w *world) agentApplier(now func() time.Time) (*Applier, *patchrec.Recorder, string) {
	w.t.Helper()
	cfg := rest.CopyConfig(w.agent)
	rec := patchrec.On(cfg)
	kc, err := kube.NewCluster("test", cfg, w.ns)
	if err != nil {
		w.t.Fatal(err)
	}
	path := filepath.Join(w.t.TempDir(), "agent-audit.jsonl")
	log, err := audit.Open(path)
	if err != nil {
		w.t.Fatal(err)
	}
	exec := &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }, Audit: log}
	return &Applier{Context: "test", Namespace: w.ns, Exec: exec, Now: now, Logf: w.t.Logf}, rec, path
}

// events are the messages of the Events on the named object.
func (w *world) events(name string) []string {
	w.t.Helper()
	list, err := w.c.Kube(w.t).CoreV1().Events(w.ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, ev := range list.Items {
		if ev.InvolvedObject.Name == name {
			out = append(out, ev.Message)
		}
	}
	return out
}

// refusedBecause checks that err is the API server's refusal naming why.
func refusedBecause(t *testing.T, err error, why string) {
	t.Helper()
	switch {
	case err == nil:
		t.Fatalf("written; want refused: %s", why)
	case !apierrors.IsForbidden(err) && !apierrors.IsInvalid(err) && !apierrors.IsConflict(err):
		t.Fatalf("refused with %v; want the admission policy's refusal: %s", err, why)
	case !strings.Contains(err.Error(), why):
		t.Fatalf("refused with %v; want it to say %q", err, why)
	}
}
