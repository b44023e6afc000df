package fleet

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// disconnectPromise is how soon after the apiserver stops answering the
// screen must say so.
const disconnectPromise = 2 * time.Second

// screenBatch is how long the workbench's pump batches model changes
// before the screen shows them (pumpInterval in ui/cli).
const screenBatch = 150 * time.Millisecond

// faultKind is one engine these tests seed: how to make a unit of it
// ("<prefix>-<n>"), and a status change its controller could write.
type faultKind struct {
	engine  model.Engine
	gvr     schema.GroupVersionResource
	prefix  string
	status  bool // written through the status subresource
	object  func(t testing.TB, ns, name string) *unstructured.Unstructured
	changed string
}

// faultKinds are every engine driftdeck watches.
var faultKinds = []faultKind{
	{model.EngineArgoCD, argocd.Applications, "app", false, func(t testing.TB, ns, name string) *unstructured.Unstructured {
		return app(t, ns, name, `"automated":{}`, `"sync":{"status":"Synced"},"health":{"status":"Healthy"}`)
	}, `{"sync":{"status":"OutOfSync"},"health":{"status":"Degraded"}}`},
	{model.EnginePulumi, pulumiop.Stacks, "stack", true, func(t testing.TB, ns, name string) *unstructured.Unstructured {
		return stack(t, ns, name, "", `{"lastUpdate":{"state":"succeeded"}}`)
	}, `{"lastUpdate":{"state":"failed"}}`},
	{model.EngineKustomization, flux.Kustomizations[0], "ks", true, func(t testing.TB, ns, name string) *unstructured.Unstructured {
		return obj(t, `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":%q,"namespace":%q},
			"spec":{"interval":"10m","prune":true,"path":"./apps","sourceRef":{"kind":"GitRepository","name":"apps"}},
			"status":{"conditions":[%s]}}`, name, ns, fluxCond("Ready", "True", "ReconciliationSucceeded", "Applied revision: "+rev1, time.Hour))
	}, `{"conditions":[` + fluxCond("Ready", "False", "BuildFailed", "kustomize build failed", time.Minute) + `]}`},
	{model.EngineHelmRelease, flux.HelmReleases[0], "hr", true, func(t testing.TB, ns, name string) *unstructured.Unstructured {
		return obj(t, `{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":%q,"namespace":%q},
			"spec":{"interval":"30m","chart":{"spec":{"chart":"podinfo","version":"6.x","sourceRef":{"kind":"HelmRepository","name":"podinfo"}}}},
			"status":{"lastAttemptedRevision":"6.7.1","conditions":[%s]}}`, name, ns, fluxCond("Ready", "True", "UpgradeSucceeded", "Helm upgrade succeeded", time.Hour))
	}, `{"lastAttemptedRevision":"6.8.0","conditions":[` + fluxCond("Ready", "False", "UpgradeFailed", "Helm upgrade failed: timed out waiting for the condition", time.Minute) + `]}`},
	{model.EngineTerraform, tofu.Terraforms[0], "tf", true, func(t testing.TB, ns, name string) *unstructured.Unstructured {
		return obj(t, `{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform","metadata":{"name":%q,"namespace":%q},
			"spec":{"interval":"1h","path":"./eks","sourceRef":{"kind":"GitRepository","name":"infra"}},
			"status":{"conditions":[%s]}}`, name, ns, fluxCond("Ready", "True", "TerraformAppliedSucceed", "Applied successfully", time.Hour))
	}, `{"conditions":[` + fluxCond("Ready", "False", "DriftDetected", "Drift detected", time.Minute) + `]}`},
}

func seedFaultUnits(t *testing.T, dyn dynamic.Interface, ns string, n int) {
	t.Helper()
	for i := range n {
		for _, k := range faultKinds {
			create(t, dyn, k.gvr, k.object(t, ns, fmt.Sprintf("%s-%d", k.prefix, i)), k.status)
		}
	}
}

// changeEverything changes unit 0 of every kind, adds one named after tag,
// and deletes unit 1.
func changeEverything(t *testing.T, dyn dynamic.Interface, ns, tag string) {
	t.Helper()
	for _, k := range faultKinds {
		patchStatus(t, dyn, k.gvr, ns, k.prefix+"-0", k.changed, k.status)
		create(t, dyn, k.gvr, k.object(t, ns, k.prefix+"-"+tag), k.status)
		if err := dyn.Resource(k.gvr).Namespace(ns).Delete(context.Background(), k.prefix+"-1", metav1.DeleteOptions{}); err != nil {
			t.Fatalf("deleting %s-1: %v", k.prefix, err)
		}
	}
}

// divergence compares the store's units of ns, object by object, with a
// fresh LIST: "" when they hold exactly the same objects at the same
// versions, else what differs.
func divergence(dyn dynamic.Interface, s *store.Store, contextName, ns string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	want := map[model.Key]string{}
	for _, k := range faultKinds {
		list, err := dyn.Resource(k.gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return "listing: " + err.Error()
		}
		for _, o := range list.Items {
			want[model.Key{Context: contextName, Engine: k.engine, Namespace: ns, Name: o.GetName()}] = string(o.GetUID()) + "@" + o.GetResourceVersion()
		}
	}
	got := map[model.Key]string{}
	for _, u := range s.Snapshot() {
		if u.Key.Context == contextName && u.Key.Namespace == ns {
			if _, dup := got[u.Key]; dup {
				return "duplicate unit " + u.Key.Ref()
			}
			got[u.Key] = u.UID + "@" + u.ResourceVersion
		}
	}
	var diffs []string
	for k, v := range want {
		if got[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: cluster %s, driftdeck %q", k.Ref(), v, got[k]))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: gone from the cluster, driftdeck still has %s", k.Ref(), v))
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}

// session is a fleet watching one namespace through cfg, as driftdeck's
// workbench does.
type session struct {
	t    *testing.T
	f    *Fleet
	name string
}

func startSession(t *testing.T, name string, cfg *rest.Config, ns string) *session {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f := New(Options{})
	addContext(t, ctx, f, name, cfg, ns)
	waitSynced(t, ctx, f, 60*time.Second)
	return &session{t: t, f: f, name: name}
}

func (s *session) status() store.ContextStatus {
	for _, st := range s.f.Store.Status() {
		if st.Context == s.name {
			return st
		}
	}
	return store.ContextStatus{}
}

// waitFor polls the context's status until ok, for at most within, and
// returns when it held.
func (s *session) waitFor(what string, within time.Duration, ok func(store.ContextStatus) bool) time.Time {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		if ok(s.status()) {
			return time.Now()
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: status stayed %+v", what, s.status())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// converge waits until the store holds exactly what a fresh LIST holds.
func (s *session) converge(dyn dynamic.Interface, ns string, within time.Duration) time.Time {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		d := divergence(dyn, s.f.Store, s.name, ns)
		if d == "" {
			return time.Now()
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("driftdeck never converged to the cluster's objects: %s", d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// controlPlaneWithUpstreamFlux is a control plane of its own, for a fault
// that takes it down, whose HelmReleases and Kustomizations are Flux's own
// CRDs (the other engines' upstream CRDs, megabytes each, would add seconds
// of installing to every run; their watches are the same code).
func controlPlaneWithUpstreamFlux(t *testing.T) *testcluster.Cluster {
	c := testcluster.Start(t, testcluster.Options{})
	c.InstallCRDs(t, testcluster.UpstreamCRDSetsNamed(t, "flux")...)
	return c
}

func TestClusterAPIServerStoppedTenSecondsThenConverges(t *testing.T) {
	c := controlPlaneWithUpstreamFlux(t)
	ns := c.Namespace(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	seedFaultUnits(t, dyn, ns, 4)
	// The other apiserver of a highly available control plane: the objects
	// change through it while the one driftdeck talks to is down.
	peer := dynamic.NewForConfigOrDie(c.PeerAPIServer(t))

	s := startSession(t, "stopped", c.Config(), ns)
	if d := divergence(dyn, s.f.Store, s.name, ns); d != "" {
		t.Fatalf("before the fault: %s", d)
	}
	listsBefore := s.status().Lists

	t0, err := c.KillAPIServer()
	if err != nil {
		t.Fatal(err)
	}
	s.waitFor("the stopped apiserver to show as disconnected", 30*time.Second, func(st store.ContextStatus) bool { return !st.Connected })
	// Since is when the model turned disconnected; the screen has it with
	// the next batch of the store's pump.
	st := s.status()
	noticed := st.Since.Sub(t0)
	t.Logf("driftdeck's model turned DISCONNECTED %v after the SIGKILL", noticed.Round(time.Millisecond))
	if noticed > disconnectPromise-screenBatch {
		t.Errorf("the disconnection reached the model %v after the apiserver was killed: with the screen's batching (%v), over the promised %v", noticed, screenBatch, disconnectPromise)
	}
	if !st.Stale() || st.Error == "" {
		t.Errorf("while the apiserver is down the status is %+v: want stale, with the reason", st)
	}

	changeEverything(t, peer, ns, "added-while-down")
	if _, ok := s.f.Store.Get(model.Key{Context: s.name, Engine: model.EngineArgoCD, Namespace: ns, Name: "app-1"}); !ok {
		t.Error("the last known units must stay on screen (marked stale) while disconnected")
	}
	if want := 4 * len(faultKinds); s.f.Store.Len() != want {
		t.Errorf("while down the store holds %d units, want the %d last known", s.f.Store.Len(), want)
	}
	time.Sleep(time.Until(t0.Add(10 * time.Second))) // the fault itself: 10 s down

	if err := c.StartAPIServer(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	back := s.waitFor("driftdeck to reconnect by itself", 90*time.Second, func(st store.ContextStatus) bool { return st.Connected && st.Error == "" })
	converged := s.converge(dyn, ns, 90*time.Second)
	t.Logf("apiserver up again: reconnected after %v, converged with a fresh LIST after %v; %d relists",
		back.Sub(started).Round(time.Millisecond), converged.Sub(started).Round(time.Millisecond), s.status().Lists-listsBefore)
	if s.status().Lists <= listsBefore {
		t.Error("the units changed while driftdeck could not watch, yet no watch relisted")
	}
}

// expiring tells the watches of the seeded units' resources.
func expiring(path string) bool {
	for _, k := range faultKinds {
		if strings.HasSuffix(path, "/"+k.gvr.Resource) {
			return true
		}
	}
	return false
}

func TestClusterExpiredWatchesRelistWithoutLosingOrDuplicatingUnits(t *testing.T) {
	c := testcluster.Shared(t)
	ns := c.Namespace(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	seedFaultUnits(t, dyn, ns, 4)
	p := c.Proxy(t)
	s := startSession(t, "expiring", p.Config(), ns)
	listsBefore := s.status().Lists

	// Every watch of the units is answered as an apiserver answers one whose
	// resource version was compacted away: 410 Gone, "too old resource
	// version". Only a relist can bring the changes.
	var expired atomic.Int32
	p.SetFault(func(r *http.Request) testcluster.Fault {
		if r.URL.Query().Get("watch") == "true" && expiring(r.URL.Path) {
			expired.Add(1)
			return testcluster.ExpireWatch
		}
		return testcluster.Pass
	})
	p.CutConnections()
	changeEverything(t, dyn, ns, "added-while-expired")
	converged := s.converge(dyn, ns, 90*time.Second)
	relists := s.status().Lists - listsBefore
	t.Logf("%d watches expired, %d relists, converged with a fresh LIST", expired.Load(), relists)
	if expired.Load() < 2 || relists < 2 {
		t.Fatalf("%d watches expired and %d relists: the fault did not happen as planned", expired.Load(), relists)
	}
	if st := s.status(); !st.Connected {
		t.Errorf("an expired watch is no lost connection, yet the status is %+v", st)
	}

	// Once watches are served again, a change arrives by watch.
	p.SetFault(nil)
	time.Sleep(time.Until(converged.Add(time.Second)))
	patchStatus(t, dyn, argocd.Applications, ns, "app-2", `{"sync":{"status":"OutOfSync"}}`, false)
	s.converge(dyn, ns, 90*time.Second)
}

func TestClusterEtcdRestartedUnderTheAPIServer(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{})
	ns := c.Namespace(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	seedFaultUnits(t, dyn, ns, 4)
	s := startSession(t, "etcd", c.Config(), ns)

	var wentDown atomic.Bool
	watching, stop := context.WithCancel(context.Background())
	defer stop()
	go func() {
		for watching.Err() == nil {
			if !s.status().Connected {
				wentDown.Store(true)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	t0 := time.Now()
	if err := c.RestartEtcd(); err != nil {
		t.Fatal(err)
	}
	t.Logf("etcd restarted in %v", time.Since(t0).Round(time.Millisecond))

	// The apiserver writes again once it reached etcd anew; driftdeck must
	// see every change made after the restart.
	kc := c.Kube(t)
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := kc.CoreV1().ConfigMaps(ns).Create(context.Background(),
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "etcd-is-back-"}}, metav1.CreateOptions{})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the apiserver does not write after etcd restarted: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	changeEverything(t, dyn, ns, "added-after-etcd-restart")
	converged := s.converge(dyn, ns, 90*time.Second)
	s.waitFor("the context to be connected", 30*time.Second, func(st store.ContextStatus) bool { return st.Connected && st.Error == "" })
	stop()
	t.Logf("converged %v after etcd was restarted; showed disconnected meanwhile: %v", converged.Sub(t0).Round(time.Millisecond), wentDown.Load())
}
