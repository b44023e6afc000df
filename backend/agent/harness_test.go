package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/audit/audittest"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

const sha = "1111111111111111111111111111111111111111"

// world is a real control plane with driftdeck's own CRDs, one namespace
// of fixtures on it, and what an agent needs to run there.
type world struct {
	t     *testing.T
	c     *testcluster.Cluster
	kc    *kube.Cluster
	dyn   dynamic.Interface
	ns    string
	audit string
}

func newWorld(t *testing.T) *world { return newWorldNamed(t, "test") }

// newWorldNamed is a world on the package's shared control plane (its own
// namespace) whose context has the given name.
func newWorldNamed(t *testing.T, context string) *world {
	return worldOn(t, testcluster.Shared(t), context)
}

// newWorldAlone is a world on a control plane of its own: for a test that
// reads every Lease of the cluster (Find), or creates the agent's default
// Lease namespace.
func newWorldAlone(t *testing.T, context string) *world {
	own, err := testcluster.OwnCRDs()
	if err != nil {
		t.Fatal(err)
	}
	return worldOn(t, testcluster.Start(t, testcluster.Options{CRDSets: []testcluster.CRDSet{own}}), context)
}

func worldOn(t *testing.T, c *testcluster.Cluster, context string) *world {
	kc, err := kube.NewCluster(context, c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	return &world{t: t, c: c, kc: kc, dyn: kc.Dynamic, ns: c.Namespace(t), audit: filepath.Join(t.TempDir(), "audit.jsonl")}
}

// app creates an Application with a syncPolicy and a status.
func (w *world) app(name, policy, status string, top ...string) {
	w.t.Helper()
	extra := ""
	if len(top) > 0 {
		extra = top[0]
	}
	var o map[string]any
	body := fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":%q,"namespace":%q},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/apps.git","path":%q,"targetRevision":"main"},
			"destination":{"server":"https://kubernetes.default.svc","namespace":%q},"syncPolicy":{%s}}%s,"status":{%s}}`,
		name, w.ns, name, name, policy, extra, status)
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		w.t.Fatalf("fixture %s: %v", name, err)
	}
	if _, err := w.dyn.Resource(argocd.Applications).Namespace(w.ns).Create(context.Background(), &unstructured.Unstructured{Object: o}, metav1.CreateOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) get(name string) *unstructured.Unstructured {
	w.t.Helper()
	o, err := w.dyn.Resource(argocd.Applications).Namespace(w.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	return o
}

// fleet watches the fixtures' namespace until the test ends.
func (w *world) fleet() *fleet.Fleet {
	w.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w.t.Cleanup(cancel)
	f := fleet.New(fleet.Options{})
	if err := f.Add(ctx, w.kc, w.ns); err != nil {
		w.t.Fatal(err)
	}
	return f
}

// executor is the one write path on the test cluster.
func (w *world) executor(dryRun bool) *actions.Executor {
	w.t.Helper()
	log, err := audit.Open(w.audit)
	if err != nil {
		w.t.Fatal(err)
	}
	return &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return w.kc, true }, Audit: log, DryRun: dryRun}
}

// agent builds an agent on its own fleet, serving metrics on a free port.
func (w *world) agent(election *Election) *Agent { return w.agentOn(w.fleet(), election) }

// agentOn builds an agent on the given fleet.
func (w *world) agentOn(f *fleet.Fleet, election *Election) *Agent {
	var elections []*Election
	if election != nil {
		elections = []*Election{election}
	}
	return &Agent{Store: f.Store, Exec: w.executor(false), Contexts: []string{"test"}, Elections: elections,
		Interval: 200 * time.Millisecond, MetricsAddr: "127.0.0.1:0", ProbeAddr: "127.0.0.1:0"}
}

// start runs an agent until the returned stop is called (or the test ends).
func start(t *testing.T, a *Agent) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done, err := a.Run(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

func (w *world) auditLines() []audit.Entry {
	w.t.Helper()
	return audittest.Entries(w.t, w.audit)
}

// events lists the Events on one object, by reason.
func (w *world) events(name string) []corev1.Event {
	w.t.Helper()
	l, err := w.kc.Kube.CoreV1().Events(w.ns).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
	if err != nil {
		w.t.Fatal(err)
	}
	return l.Items
}

func ago(d time.Duration) string { return time.Now().Add(-d).UTC().Format(time.RFC3339) }
