package rootreq

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/testkit/testchangereq"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testtofu"
)

// world is a root module of terraform_data resources on the local backend,
// applied once by its user, and a namespace of the shared control plane
// with deploy/change-requests/ as shipped, where alice asks and bob
// reviews.
type world struct {
	t      *testing.T
	ctx    context.Context
	c      *testcluster.Cluster
	ns     string
	module *testtofu.Module
	root   rootmod.Root
	people map[string]dynamic.Interface
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	c := testcluster.Shared(t)
	testchangereq.Install(t, c)
	w := &world{t: t, ctx: ctx, c: c, ns: c.Namespace(t), module: testtofu.New(t, testtofu.Sleepy), people: map[string]dynamic.Interface{}}
	for _, name := range []string{"alice", "bob"} {
		cfg := c.UserConfig(t, name, nil, w.ns)
		testchangereq.Bind(t, c, w.ns, name, "driftdeck-change-requester")
		testchangereq.Bind(t, c, w.ns, name, "driftdeck-change-reviewer")
		w.people[name] = dynamic.NewForConfigOrDie(cfg)
	}
	w.module.User("init", "-no-color")
	w.module.User("apply", "-auto-approve", "-no-color")
	r, err := rootmod.FromDir(w.module.Dir)
	if err != nil {
		t.Fatal(err)
	}
	w.root = r
	return w
}

// tofu is someone's own tofu: their working data in their own cache.
func (w *world) tofu(who string) *rootmod.Tofu {
	w.t.Helper()
	tf, err := rootmod.New(w.module.Bin, filepath.Join(w.t.TempDir(), who))
	if err != nil {
		w.t.Fatal(err)
	}
	return tf
}

// ask has alice plan the module with her own tofu and ask for that plan.
func (w *world) ask(reason string) *changereq.ChangeRequest {
	w.t.Helper()
	saved, err := w.tofu("alice").Plan(w.ctx, w.root, "alice", 0, diff.Options{})
	if err != nil {
		w.t.Fatal(err)
	}
	cr, err := Ask(w.ctx, w.people["alice"], w.ns, w.root, saved, reason, changereq.Ask{Requester: "alice"}, time.Now())
	if err != nil {
		w.t.Fatal(err)
	}
	return cr
}

func (w *world) review(who string, cr *changereq.ChangeRequest, decision string) error {
	_, err := changereq.AddReview(w.ctx, w.people[who], cr, changereq.Review{User: who, Decision: decision, Reason: "the plan puts the server back"}, time.Now())
	return err
}

func (w *world) get(cr *changereq.ChangeRequest) *changereq.ChangeRequest {
	w.t.Helper()
	got, err := changereq.Get(w.ctx, dynamic.NewForConfigOrDie(w.c.Config()), cr.Namespace, cr.Name)
	if err != nil {
		w.t.Fatal(err)
	}
	return got
}

// agent is the agent's applier of the namespace's requests, reading the
// module (when reads) with its own tofu, and the path of its audit log.
func (w *world) agent(reads bool) (*changereq.Applier, string) {
	w.t.Helper()
	kc, err := kube.NewCluster("test", testchangereq.AgentConfig(w.t, w.c), w.ns)
	if err != nil {
		w.t.Fatal(err)
	}
	path := filepath.Join(w.t.TempDir(), "agent-audit.jsonl")
	log, err := audit.Open(path)
	if err != nil {
		w.t.Fatal(err)
	}
	tofu := w.tofu("agent")
	find := func(k model.Key) (rootmod.Root, *rootmod.Tofu, bool) {
		return w.root, tofu, reads && k == w.root.Key()
	}
	exec := &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }, Audit: log}
	return &changereq.Applier{Context: "test", Namespace: w.ns, Exec: exec, Roots: &Sender{Find: find, Audit: log}, Logf: w.t.Logf}, path
}

// endpoint is the module's output as its state holds it now.
func (w *world) endpoint() string { return w.module.User("output", "-raw", "endpoint") }
