package fleet

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// Two contexts naming the same app are two units: keys carry the context.
func TestClusterSeveralContextsInOneModel(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	create(t, dyn, argocd.Applications, app(t, ns, "web", `"automated":{}`, `"sync":{"status":"Synced"},"health":{"status":"Healthy"}`), false)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := New(Options{})
	for _, name := range []string{"prod-eu", "prod-us"} {
		addContext(t, ctx, f, name, c.Config(), ns)
	}
	waitSynced(t, ctx, f, 30*time.Second)
	for _, name := range []string{"prod-eu", "prod-us"} {
		if _, ok := f.Store.Get(model.Key{Context: name, Engine: model.EngineArgoCD, Namespace: ns, Name: "web"}); !ok {
			t.Errorf("the app of context %s is missing", name)
		}
	}
	if n := len(f.Store.Status()); n != 2 {
		t.Fatalf("%d context statuses, want 2", n)
	}
	if err := f.Add(ctx, &kube.Cluster{Context: "prod-eu"}, ns); err == nil {
		t.Fatal("adding a context twice must be refused")
	}
}
