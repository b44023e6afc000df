package fleet

import (
	"context"
	"net"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/leakcheck"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// leakTolerance is the growth allowed over a run of cycles: what the
// runtime and the HTTP clients keep by chance, far below one per cycle.
const leakTolerance = 20

// closedAddress is a local address nothing listens on: connecting to it is
// refused at once.
func closedAddress(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// waitStatus polls the fleet's status of one context until ok.
func waitStatus(t *testing.T, f *Fleet, name string, ok func(s string, connected bool) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, s := range f.Store.Status() {
			if s.Context == name && ok(s.Error, s.Connected) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("context %s: status %+v after 20 s", name, f.Store.Status())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// A context that cannot be reached, added (retrying in the background) and
// removed again a thousand times, leaves no goroutine or connection behind.
func TestAContextThatFailsToConnectLeavesNothingBehind(t *testing.T) {
	cfg := &rest.Config{Host: "https://" + closedAddress(t), Timeout: 5 * time.Second}
	leakcheck.Cycles(t, 1000, leakTolerance, func(int) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c, err := kube.NewCluster("dead", cfg, "default")
		if err != nil {
			t.Fatal(err)
		}
		f := New(Options{})
		f.AddRetrying(ctx, c, "")
		waitStatus(t, f, "dead", func(e string, _ bool) bool { return e != "" })
	})
}

// A context of a real apiserver that connects, lists everything and is
// removed again, many times, leaves no watch, goroutine or connection behind.
func TestClusterAContextThatConnectsAndGoesLeavesNothingBehind(t *testing.T) {
	c := testcluster.Shared(t)
	ns := c.Namespace(t)
	create(t, dynamic.NewForConfigOrDie(c.Config()), argocd.Applications, app(t, ns, "web", `"automated":{}`, `"sync":{"status":"Synced"},"health":{"status":"Healthy"}`), false)
	leakcheck.Cycles(t, 200, leakTolerance, func(int) {
		ctx, cancel := context.WithCancel(context.Background())
		f := New(Options{})
		addContext(t, ctx, f, "test", c.Config(), ns)
		waitSynced(t, ctx, f, 30*time.Second)
		cancel()
	})
}
