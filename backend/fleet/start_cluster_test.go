package fleet

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// isDiscovery tells discovery's requests (/api/v1, /apis/<group>/<version>)
// from lists and watches, which name a resource after the version.
func isDiscovery(path string) bool {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	return parts[0] == "api" && len(parts) == 2 || parts[0] == "apis" && len(parts) == 3
}

// On a link seconds long every round trip before the first LISTs is
// seconds more before the list is complete: with discovery held back, the
// Applications still reach the model, and the context is synced only once
// every watch has its first list.
func TestClusterTheFirstListsDoNotWaitForDiscovery(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	create(t, dyn, argocd.Applications, app(t, ns, "web", `"automated":{}`, `"sync":{"status":"Synced"},"health":{"status":"Healthy"}`), false)

	release, stacks := make(chan struct{}), make(chan struct{})
	var heldBack atomic.Int32
	cfg := c.Config()
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			hold := release
			if strings.HasSuffix(r.URL.Path, "/stacks") {
				hold = stacks
			}
			if isDiscovery(r.URL.Path) || hold == stacks {
				heldBack.Add(1)
				select {
				case <-hold:
				case <-r.Context().Done():
					return nil, r.Context().Err()
				}
			}
			return rt.RoundTrip(r)
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := New(Options{})
	web := model.Key{Context: "slow", Engine: model.EngineArgoCD, Namespace: ns, Name: "web"}
	listedFirst := make(chan bool, 1)
	go func() {
		defer close(release)
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, ok := f.Store.Get(web); ok {
				listedFirst <- true
				return
			}
		}
		listedFirst <- false
	}()
	addContext(t, ctx, f, "slow", cfg, ns)
	if !<-listedFirst {
		t.Fatal("the Application reached the model only after discovery answered")
	}
	if heldBack.Load() == 0 {
		t.Fatal("no discovery request was seen: the test held nothing back")
	}
	// Every watch counts before any can finish: with the Stacks' list
	// still out, the context is not synced, however long the others wait.
	time.Sleep(500 * time.Millisecond)
	if st := f.Store.Status()[0]; st.Synced {
		t.Errorf("the context is marked synced while the Stacks' first list is still out: %+v", st)
	}
	close(stacks)
	waitSynced(t, ctx, f, 30*time.Second)
	if st := f.Store.Status()[0]; !st.Connected || !st.Synced || st.Error != "" {
		t.Errorf("the context after every first list: %+v", st)
	}
}

// A Flux older than the newest API driftdeck reads serves Kustomizations
// in v1beta2 only: the first list of v1 answers 404, and the watch goes on
// in the version discovery finds, the units as on a current Flux.
func TestClusterAnOlderServedVersionIsWatchedWhenTheNewestIsNot(t *testing.T) {
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	crd, err := os.ReadFile(filepath.Join(root, "testdata", "crds", "kustomize.toolkit.fluxcd.io_kustomizations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(crd), "  - name: v1\n", "  - name: v1beta2\n", 1)
	if old == string(crd) {
		t.Fatal("the Kustomization CRD no longer names its version as this test expects")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kustomizations.yaml"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	c := testcluster.Start(t, testcluster.Options{CRDSets: []testcluster.CRDSet{{Name: "flux-v1beta2", Dir: dir}}})
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	v1beta2 := schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1beta2", Resource: "kustomizations"}
	if v1beta2 != flux.Kustomizations[1] {
		t.Fatalf("driftdeck's second Kustomization version is %v", flux.Kustomizations[1])
	}
	create(t, dyn, v1beta2, obj(t, `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1beta2","kind":"Kustomization",
		"metadata":{"name":"apps","namespace":%q},
		"spec":{"interval":"5m","path":"./apps","prune":true,"sourceRef":{"kind":"GitRepository","name":"flux-system"}}}`, ns), false)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := New(Options{})
	addContext(t, ctx, f, "old-flux", c.Config(), ns)
	waitSynced(t, ctx, f, 30*time.Second)
	u, ok := f.Store.Get(model.Key{Context: "old-flux", Engine: model.EngineKustomization, Namespace: ns, Name: "apps"})
	if !ok {
		t.Fatal("the v1beta2 Kustomization is not in the model")
	}
	if u.Flux == nil || u.Flux.Source.Name != "flux-system" || u.Flux.Interval != "5m" {
		t.Errorf("the v1beta2 Kustomization read as %+v", u.Flux)
	}
	st := f.Store.Status()[0]
	if _, missing := st.Missing[string(model.EngineKustomization)]; missing {
		t.Errorf("Kustomizations reported missing although v1beta2 is served: %v", st.Missing)
	}
	if _, missing := st.Missing[string(model.EngineArgoCD)]; !missing {
		t.Errorf("Argo CD, whose CRDs are not installed, is not reported missing: %v", st.Missing)
	}
	if !st.Connected || !st.Synced || st.Error != "" {
		t.Errorf("the context: %+v", st)
	}
}
