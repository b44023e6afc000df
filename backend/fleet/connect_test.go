package fleet

import (
	"context"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/kube"
)

// addContext adds the cluster cfg reaches to f as context name, watching ns.
func addContext(t testing.TB, ctx context.Context, f *Fleet, name string, cfg *rest.Config, ns string) {
	t.Helper()
	kc, err := kube.NewCluster(name, cfg, "default")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Add(ctx, kc, ns); err != nil {
		t.Fatal(err)
	}
}

// waitSynced fails the test unless every watch of f has delivered its first
// list within d.
func waitSynced(t testing.TB, ctx context.Context, f *Fleet, d time.Duration) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	if err := f.WaitSynced(wctx); err != nil {
		t.Fatal(err)
	}
}
