package actions

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// interloper lets another writer write an object just before driftdeck's
// first patch of it reaches the API server: the moment between driftdeck's
// read and its write, every time.
type interloper struct {
	next  http.RoundTripper
	name  string
	once  sync.Once
	write func()
}

func (i *interloper) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPatch && strings.HasSuffix(r.URL.Path, "/"+i.name) {
		i.once.Do(i.write)
	}
	return i.next.RoundTrip(r)
}

// interloped is an env whose writes to object name meet write first.
func interloped(t *testing.T, c *testcluster.Cluster, name string, write func()) *env {
	cfg := c.Config()
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return &interloper{next: rt, name: name, write: write} }
	e := newEnv(t, c, cfg)
	e.ns = c.Namespace(t)
	return e
}

const kustomization = `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":%q},
	"spec":{"interval":"10m","prune":true,"path":"./web","sourceRef":{"kind":"GitRepository","name":"infra"}}}`

// A write planned fresh (no confirmed version) whose precondition another
// writer broke is planned again on a fresh read, instead of being refused:
// what the other wrote stays, and the action is done, or refused for the
// state the other left.
func TestClusterAFreshWriteThatMetAnotherWriterIsPlannedAgain(t *testing.T) {
	c := testcluster.Shared(t)
	ctx := context.Background()
	admin := dynamic.NewForConfigOrDie(c.Config())

	t.Run("a reconcile request meets another's first annotation", func(t *testing.T) {
		var e *env
		e = interloped(t, c, "web", func() {
			_, err := admin.Resource(flux.Kustomizations[0]).Namespace(e.ns).Patch(ctx, "web", types.MergePatchType,
				[]byte(`{"metadata":{"annotations":{"team":"payments"}}}`), metav1.PatchOptions{})
			if err != nil {
				t.Errorf("the other writer: %v", err)
			}
		})
		e.create(flux.Kustomizations[0], kustomization, "web")
		res, err := e.run(Request{Kind: Refresh, Key: e.key(model.EngineKustomization, "web")})
		if err != nil {
			t.Fatalf("the request was not planned again: %v", err)
		}
		ann := e.get(flux.Kustomizations[0], "web").GetAnnotations()
		if ann["team"] != "payments" || ann[flux.AnnotationRequestedAt] != res.Token {
			t.Errorf("annotations %v: want the other writer's and the request %s", ann, res.Token)
		}
		if lines := e.auditLines(); len(lines) != 1 || lines[0].Outcome != "done" {
			t.Errorf("one attempt, one audit line: %+v", lines)
		}
		if ev := e.events("web"); len(ev) != 1 {
			t.Errorf("events %v, want one", ev)
		}
	})

	t.Run("a pause meets another's pause", func(t *testing.T) {
		other, err := kube.NewCluster("test", c.Config(), "default")
		if err != nil {
			t.Fatal(err)
		}
		first := &Executor{Cluster: func(string) (*kube.Cluster, bool) { return other, true }}
		var e *env
		e = interloped(t, c, "web", func() {
			if _, err := first.Execute(ctx, Request{Kind: Pause, Key: e.key(model.EngineKustomization, "web"), Reason: "INC-1 first"}); err != nil {
				t.Errorf("the other pause: %v", err)
			}
		})
		e.create(flux.Kustomizations[0], kustomization, "web")
		_, err = e.run(Request{Kind: Pause, Key: e.key(model.EngineKustomization, "web"), Reason: "INC-1 second"})
		var refusal *Refusal
		if !errors.As(err, &refusal) || !refusal.NothingToDo || !strings.Contains(err.Error(), "already paused by") {
			t.Fatalf("the second pause: %v; want a refusal saying it is already paused", err)
		}
		if got := e.get(flux.Kustomizations[0], "web").GetAnnotations()[pause.AnnotationReason]; got != "INC-1 first" {
			t.Errorf("the pause record says %q: the first pause's record was replaced", got)
		}
	})
}
