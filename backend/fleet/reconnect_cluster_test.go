package fleet

import (
	"context"
	"net/url"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

func TestClusterStaleWhileDisconnectedThenReconnects(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	create(t, dyn, argocd.Applications, app(t, ns, "web", `"automated":{}`, `"sync":{"status":"Synced"},"health":{"status":"Healthy"}`), false)

	cfg := c.Config()
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, u.Host)
	cfg.Host = "https://" + p.addr
	cfg.TLSClientConfig.ServerName = "127.0.0.1"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := New(Options{})
	addContext(t, ctx, f, "flaky", cfg, ns)
	waitSynced(t, ctx, f, 30*time.Second)
	status := func() store.ContextStatus { return f.Store.Status()[0] }
	waitStatus := func(what string, ok func(store.ContextStatus) bool) store.ContextStatus {
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if s := status(); ok(s) {
				return s
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("%s: status stayed %+v", what, status())
		return store.ContextStatus{}
	}
	if s := status(); !s.Connected || s.Stale() {
		t.Fatalf("a fresh connection shows %+v", s)
	}
	lastBefore := status().LastEvent

	p.cut()
	s := waitStatus("the lost connection to show", func(s store.ContextStatus) bool { return !s.Connected })
	if !s.Stale() || s.Error == "" || s.LastEvent.After(time.Now()) || s.LastEvent.Before(lastBefore) {
		t.Fatalf("disconnected status %+v: must be stale, say why, and keep the age of the last event", s)
	}
	if _, ok := f.Store.Get(model.Key{Context: "flaky", Engine: model.EngineArgoCD, Namespace: ns, Name: "web"}); !ok {
		t.Fatal("the units must stay (shown as stale) while disconnected")
	}

	// A change made while driftdeck cannot see it must arrive after reconnect.
	patchStatus(t, dyn, argocd.Applications, ns, "web", `{"sync":{"status":"OutOfSync"}}`, false)
	p.restore()
	waitStatus("the connection to come back", func(s store.ContextStatus) bool { return s.Connected && s.Error == "" })
	deadline := time.Now().Add(60 * time.Second)
	for {
		got, _ := f.Store.Get(model.Key{Context: "flaky", Engine: model.EngineArgoCD, Namespace: ns, Name: "web"})
		if got != nil && got.Sync == model.Drifted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the change made while disconnected never reached the model")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
