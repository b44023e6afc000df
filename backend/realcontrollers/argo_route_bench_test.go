package realcontrollers

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

var benchApps struct {
	sync.Once
	err error
}

// The bench's 5,000 Applications in Argo CD's namespace, read by the real
// argocd-server: driftdeck's model through it against a bare GET
// /api/v1/applications of it (the bytes, read whole), and the heap that
// model keeps against the Kubernetes route's over the same Applications.
// Reported per start: api-model-ms, bare-get-ms, api/bare (target 1.3),
// api-heap-MB, kube-heap-MB, api/kube-heap (target 1.1).
func BenchmarkArgoCDThroughARealAPIServer(b *testing.B) {
	const apps = 5000
	c := testcluster.Shared(b)
	srv, err := sharedArgo(b).StartServer()
	if err != nil {
		b.Fatal(err)
	}
	token, err := srv.AdminToken()
	if err != nil {
		b.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(c.Config())
	// The benchmark runs again for a larger b.N: the Applications are
	// created once, and go with the control plane (deleting 5,000 at its
	// end outlasted the API server's request timeout).
	benchApps.Do(func() {
		label := map[string]any{"driftdeck.io/bench": "argo-route"}
		_, benchApps.err = fleetgen.CreateApplications(context.Background(), dyn, testargocd.Namespace, apps, label)
	})
	if benchApps.err != nil {
		b.Fatal(benchApps.err)
	}
	bare := func() (time.Duration, int64) {
		t := time.Now()
		req, _ := http.NewRequest(http.MethodGet, "http://"+srv.Addr+"/api/v1/applications", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(t), n
	}
	// The controller compares each Application (their projects do not
	// exist) and goes on refreshing them. Once the first comparisons are
	// in (the list grows by less than 1% in 5 s) it is frozen: what is
	// measured is driftdeck and argocd-server, not the controller's work
	// beside them on the same cores (it doubled the spread of a bare GET).
	for last := int64(0); ; time.Sleep(5 * time.Second) {
		_, n := bare()
		if last > 0 && n-last < last/100 {
			break
		}
		last = n
	}
	thaw, err := sharedArgo(b).FreezeController()
	if err != nil {
		b.Fatal(err)
	}
	defer thaw()
	client, err := argoapi.New(argodiff.NewServerConfig("http://"+srv.Addr, token))
	if err != nil {
		b.Fatal(err)
	}
	kc, err := kube.NewCluster("test", c.Config(), testargocd.Namespace)
	if err != nil {
		b.Fatal(err)
	}
	// The heap a model keeps is measured from the heap before any: the
	// previous model's watches end in the background after their context
	// does, and a baseline read while they still held it hid the next
	// model's heap.
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	baseline := heap()
	settled := func() {
		for i := 0; i < 50 && heap() > baseline+(1<<20); i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
	modelOf := func(route []*fleet.ArgoRoute) (time.Duration, float64) {
		settled()
		before := heap()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		t := time.Now()
		f := fleet.New(fleet.Options{Engines: []model.Engine{model.EngineArgoCD}, Argo: route})
		if err := f.Add(ctx, kc, testargocd.Namespace); err != nil {
			b.Fatal(err)
		}
		if err := f.WaitSynced(ctx); err != nil {
			b.Fatal(err)
		}
		for f.Store.Tick(); f.Store.Len() < apps; f.Store.Tick() {
			time.Sleep(time.Millisecond)
		}
		took := time.Since(t)
		after := heap()
		runtime.KeepAlive(f)
		return took, float64(int64(after)-int64(before)) / (1 << 20)
	}
	var apiModel, floor time.Duration
	var apiHeap, kubeHeap float64
	b.ResetTimer()
	for range b.N {
		d, _ := bare()
		floor += d
		d, h := modelOf([]*fleet.ArgoRoute{{Client: client, Context: "test"}})
		apiModel, apiHeap = apiModel+d, apiHeap+h
		_, h = modelOf(nil)
		kubeHeap += h
	}
	n := float64(b.N)
	b.ReportMetric(float64(apiModel.Milliseconds())/n, "api-model-ms")
	b.ReportMetric(float64(floor.Milliseconds())/n, "bare-get-ms")
	b.ReportMetric(float64(apiModel)/float64(floor), "api/bare")
	b.ReportMetric(apiHeap/n, "api-heap-MB")
	b.ReportMetric(kubeHeap/n, "kube-heap-MB")
	b.ReportMetric(apiHeap/kubeHeap, "api/kube-heap")
}
