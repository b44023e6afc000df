package realcontrollers

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/sim"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// argoSide is one Application of a conformance scenario on one controller,
// the real one or the simulator: the scenario drives it through driftdeck's
// actions and reads what the controller made of them.
type argoSide interface {
	// create makes the app (hang: its syncs never finish) and returns the
	// commit its branch points at.
	create(policy map[string]any, hang bool) string
	// commit moves the branch to a new commit that changes the app.
	commit() string
	// editLive changes a live resource of the app by hand.
	editLive()
	get() map[string]any
	do(req actions.Request)
	key() model.Key
	actor() string
	logs() string
}

// realSide runs the scenario on the real Argo CD.
type realSide struct {
	e    *env
	name string
	repo *testargocd.Repo
}

func newRealSide(t *testing.T, name string) argoSide {
	return &realSide{e: realArgo(t), name: name}
}

func (s *realSide) create(policy map[string]any, hang bool) string {
	s.repo = testargocd.NewRepo(s.e.t)
	files := map[string]string{s.name + "/cm.yaml": testargocd.ConfigMap(s.name, "v1")}
	if hang {
		// Its own destination namespace makes the name new per test.
		files[s.name+"/hook.yaml"] = fmt.Sprintf(hookJob, "presync-"+s.name)
	}
	rev := s.repo.Commit("v1", files)
	s.e.app(s.name, s.repo, policy)
	return rev
}

func (s *realSide) commit() string {
	return s.repo.Commit("next", map[string]string{s.name + "/cm.yaml": testargocd.ConfigMap(s.name, "v"+time.Now().Format("150405.000"))})
}

func (s *realSide) editLive() {
	s.e.t.Helper()
	ctx := context.Background()
	cm, err := s.e.kube.CoreV1().ConfigMaps(s.e.dest).Get(ctx, s.name, metav1.GetOptions{})
	if err != nil {
		s.e.t.Fatal(err)
	}
	cm.Data["value"] = "edited by hand"
	if _, err := s.e.kube.CoreV1().ConfigMaps(s.e.dest).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		s.e.t.Fatal(err)
	}
}

func (s *realSide) get() map[string]any    { return s.e.get(s.name) }
func (s *realSide) do(req actions.Request) { s.e.do(req) }
func (s *realSide) key() model.Key         { return s.e.key(s.name) }
func (s *realSide) actor() string          { return s.e.actor }
func (s *realSide) logs() string           { return s.e.argo.Log("application-controller") }

// The simulator runs once for the package, on the shared control plane, in
// a namespace of its own (the real controller watches only argocd).
var simulated struct {
	once    sync.Once
	argo    *sim.Argo
	git     *sim.Git
	ns      string
	hanging sync.Map // app name -> true
	err     error
}

const simRepo = "https://git.example.com/conformance.git"

// simSide runs the scenario on backend/sim's Argo CD, with the timings the
// demo uses scaled down.
type simSide struct {
	t      *testing.T
	name   string
	dyn    dynamic.Interface
	exec   *actions.Executor
	whoami string
}

func newSimSide(t *testing.T, name string) argoSide {
	t.Helper()
	c := testcluster.Shared(t)
	simulated.once.Do(func() {
		dyn, err := dynamic.NewForConfig(c.Config())
		if err != nil {
			simulated.err = err
			return
		}
		simulated.ns = c.Namespace(t) // namespaces outlive their test here
		simulated.git = sim.NewGit()
		simulated.argo = sim.NewArgo(dyn, sim.ArgoOptions{
			Namespace: simulated.ns, ControlNamespace: simulated.ns, Git: simulated.git,
			SyncDuration: 300 * time.Millisecond, SelfHealDelay: time.Second, WindowRecheck: time.Second,
			Behavior: func(_, name string) sim.AppBehavior {
				_, hang := simulated.hanging.Load(name)
				return sim.AppBehavior{Hang: hang}
			},
		})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { _ = simulated.argo.Run(ctx); close(done) }()
		c.BeforeStop(func() error { cancel(); <-done; return nil })
		select {
		case <-simulated.argo.Ready():
		case <-time.After(60 * time.Second):
			simulated.err = fmt.Errorf("the simulated controller did not start")
		}
	})
	if simulated.err != nil {
		t.Fatal(simulated.err)
	}
	kc, err := kube.NewCluster("test", c.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	actor, err := kc.Access.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return &simSide{t: t, name: name, dyn: kc.Dynamic, whoami: actor,
		exec: &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}}
}

func (s *simSide) create(policy map[string]any, hang bool) string {
	s.t.Helper()
	if hang {
		simulated.hanging.Store(s.name, true)
	}
	rev := simulated.git.Push(simRepo+"/"+s.name, "main", s.name)
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": s.name, "namespace": simulated.ns},
		"spec": map[string]any{
			"project":     "default",
			"source":      map[string]any{"repoURL": simRepo + "/" + s.name, "path": s.name, "targetRevision": "main"},
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": s.name},
			"syncPolicy":  policy,
		},
	}}
	ri := s.dyn.Resource(argocd.Applications).Namespace(simulated.ns)
	if _, err := ri.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = ri.Delete(context.Background(), s.name, metav1.DeleteOptions{}) })
	return rev
}

func (s *simSide) commit() string { return simulated.git.Push(simRepo+"/"+s.name, "main", s.name) }

func (s *simSide) editLive() {
	s.t.Helper()
	if err := simulated.argo.ManualChange(context.Background(), simulated.ns, s.name); err != nil {
		s.t.Fatal(err)
	}
}

func (s *simSide) get() map[string]any {
	s.t.Helper()
	o, err := s.dyn.Resource(argocd.Applications).Namespace(simulated.ns).Get(context.Background(), s.name, metav1.GetOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	return o.Object
}

func (s *simSide) do(req actions.Request) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.exec.Execute(ctx, req); err != nil {
		s.t.Fatalf("%s %s: %v", req.Kind, req.Key.Ref(), err)
	}
}

func (s *simSide) key() model.Key {
	return model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: simulated.ns, Name: s.name}
}
func (s *simSide) actor() string { return s.whoami }
func (s *simSide) logs() string  { return "(the simulator keeps no log)" }
