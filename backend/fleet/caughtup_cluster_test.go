package fleet

import (
	"context"
	"strconv"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/engines"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// waitCaughtUp waits until the model holds every unit of ns at least as
// new as a consistent read of the API server: the first lists come from
// its watch cache, which under load may not have seen the last writes of
// the test's seed yet (the watch then brings them).
func waitCaughtUp(t *testing.T, c *testcluster.Cluster, f *Fleet, ns string) {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(c.Config())
	want := map[model.Key]int64{}
	for _, d := range engines.All() {
		for _, gvr := range d.Versions {
			list, err := dyn.Resource(gvr).Namespace(ns).List(context.Background(), metav1.ListOptions{})
			if apierrors.IsNotFound(err) {
				continue
			}
			if err != nil {
				t.Fatalf("listing %s: %v", gvr.Resource, err)
			}
			for _, o := range list.Items {
				rv, _ := strconv.ParseInt(o.GetResourceVersion(), 10, 64)
				want[model.Key{Context: "test", Engine: d.Engine, Namespace: ns, Name: o.GetName()}] = rv
			}
			break
		}
	}
	testcluster.Eventually(t, 30*time.Second, "the model as new as a consistent read of the namespace", func() bool {
		for k, rv := range want {
			u, ok := f.Store.Get(k)
			if !ok {
				return false
			}
			if have, _ := strconv.ParseInt(u.ResourceVersion, 10, 64); have < rv {
				return false
			}
		}
		return true
	})
}
