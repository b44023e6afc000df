package fleet

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

// benchApps is how many Applications the route benchmark reads: the
// fleet-scale bench's mix.
const benchApps = 5000

// seedApps creates the bench's Applications in ns, on a few connections at
// once, and returns them as the apiserver keeps them.
func seedApps(b *testing.B, dyn dynamic.Interface, ns string, n int) []map[string]any {
	b.Helper()
	apps := dyn.Resource(argocd.Applications).Namespace(ns)
	now := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	next := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				obj := fleetgen.Application(i, now)
				obj["metadata"].(map[string]any)["namespace"] = ns
				if _, err := apps.Create(context.Background(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	list, err := apps.List(context.Background(), metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	out := make([]map[string]any, len(list.Items))
	for i := range list.Items {
		out[i] = list.Items[i].Object
	}
	return out
}

// argoServerOf answers as argocd-server does the requests of the route's
// feed, with items: the list whole, a stream that stays open, the user.
func argoServerOf(b *testing.B, items []map[string]any) *httptest.Server {
	b.Helper()
	list, err := json.Marshal(map[string]any{"metadata": map[string]any{}, "items": items})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/applications":
			w.Write(list)
		case "/api/v1/stream/applications":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/api/v1/session/userinfo":
			w.Write([]byte(`{"loggedIn":true,"username":"bench"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}

// modelOf starts a fleet reading only Argo CD (through route, when set)
// and returns it once its model holds want units, with the time that took.
func modelOf(b *testing.B, ctx context.Context, kc *kube.Cluster, route []*ArgoRoute, ns string, want int) (*Fleet, time.Duration) {
	b.Helper()
	began := time.Now()
	f := New(Options{Engines: []model.Engine{model.EngineArgoCD}, Argo: route})
	if err := f.Add(ctx, kc, ns); err != nil {
		b.Fatal(err)
	}
	if err := f.WaitSynced(ctx); err != nil {
		b.Fatal(err)
	}
	for f.Store.Tick(); f.Store.Len() < want; f.Store.Tick() {
		time.Sleep(time.Millisecond)
	}
	return f, time.Since(began)
}

// heapOf is the live heap once the collector ran twice.
func heapOf() uint64 {
	collect()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Argo CD's Applications through its API server (ADR 0033), side by side
// with a bare GET /api/v1/applications of the same server, and with the
// Kubernetes route over the same 5,000 Applications on a real control
// plane: the time to a complete model and the heap it keeps. Reported per
// start: api-model-ms, bare-get-ms, api/bare (target 1.3), kube-model-ms,
// api-heap-MB, kube-heap-MB, api/kube-heap (target 1.1).
func BenchmarkArgoCDThroughItsAPIServer(b *testing.B) {
	c := testcluster.Shared(b)
	ns := c.Namespace(b)
	items := seedApps(b, dynamic.NewForConfigOrDie(c.Config()), ns, benchApps)
	srv := argoServerOf(b, items)
	kc, err := kube.NewCluster("test", c.Config(), ns)
	if err != nil {
		b.Fatal(err)
	}
	client, err := argoapi.New(argodiff.NewServerConfig(srv.URL, "bench-token"))
	if err != nil {
		b.Fatal(err)
	}
	var apiModel, kubeModel, bare time.Duration
	var apiHeap, kubeHeap float64
	b.ResetTimer()
	for range b.N {
		t := time.Now()
		resp, err := http.Get(srv.URL + "/api/v1/applications")
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		bare += time.Since(t)

		base := heapOf()
		ctx, cancel := context.WithCancel(context.Background())
		f, took := modelOf(b, ctx, kc, []*ArgoRoute{{Client: client, Context: "test"}}, ns, len(items))
		apiModel += took
		apiHeap += float64(heapOf()-base) / (1 << 20)
		runtime.KeepAlive(f)
		cancel()

		base = heapOf()
		ctx, cancel = context.WithCancel(context.Background())
		f, took = modelOf(b, ctx, kc, nil, ns, len(items))
		kubeModel += took
		kubeHeap += float64(heapOf()-base) / (1 << 20)
		runtime.KeepAlive(f)
		cancel()
	}
	n := float64(b.N)
	b.ReportMetric(float64(apiModel.Milliseconds())/n, "api-model-ms")
	b.ReportMetric(float64(bare.Milliseconds())/n, "bare-get-ms")
	b.ReportMetric(float64(kubeModel.Milliseconds())/n, "kube-model-ms")
	b.ReportMetric(float64(apiModel)/float64(bare), "api/bare")
	b.ReportMetric(apiHeap/n, "api-heap-MB")
	b.ReportMetric(kubeHeap/n, "kube-heap-MB")
	b.ReportMetric(apiHeap/kubeHeap, "api/kube-heap")
}
