package agent

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// An agent watching two contexts holds a Lease in each and writes to a
// context only while it holds that context's Lease: with the west Lease held
// by another replica, it resumes the east pause and leaves the west one
// alone until the other replica's Lease lapses.
func TestClusterEachContextsWritesAreGuardedByItsOwnLease(t *testing.T) {
	east, west := newWorldNamed(t, "east"), newWorldAlone(t, "west")
	ctx := context.Background()
	for _, w := range []*world{east, west} {
		w.app("web", `"automated":{"selfHeal":true}`, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	}
	// Another replica holds the west Lease, renewed just now.
	held := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: west.ns, Name: "driftdeck-agent"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("other-replica"), LeaseDurationSeconds: ptr.To[int32](3600),
			AcquireTime: &metav1.MicroTime{Time: time.Now()}, RenewTime: &metav1.MicroTime{Time: time.Now()}}}
	if _, err := west.kc.Kube.CoordinationV1().Leases(west.ns).Create(ctx, held, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	fctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	f := fleet.New(fleet.Options{})
	for _, w := range []*world{east, west} {
		if err := f.Add(fctx, w.kc, w.ns); err != nil {
			t.Fatal(err)
		}
	}
	log, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	exec := &actions.Executor{Cluster: f.Cluster, Audit: log}
	for _, w := range []*world{east, west} {
		k := model.Key{Context: w.kc.Context, Engine: model.EngineArgoCD, Namespace: w.ns, Name: "web"}
		if _, err := exec.Execute(ctx, actions.Request{Kind: actions.Pause, Key: k, Reason: "INC-7", Until: time.Now().Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
	}

	election := func(w *world) *Election {
		return &Election{Context: w.kc.Context, Client: w.kc.Kube, Namespace: w.ns, Name: "driftdeck-agent", Identity: "this-replica", LeaseDuration: 3 * time.Second}
	}
	a := &Agent{Store: f.Store, Exec: exec, Contexts: []string{"east", "west"}, Elections: []*Election{election(east), election(west)},
		Interval: 200 * time.Millisecond, MetricsAddr: "127.0.0.1:0", ProbeAddr: "0"}
	start(t, a)

	paused := func(w *world) bool { return w.get("web").GetAnnotations()["driftdeck.io/paused-by"] != "" }
	testcluster.Eventually(t, 30*time.Second, "the east pause resumed by the holder of the east Lease", func() bool { return !paused(east) })
	if p := Running(ctx, east.kc.Kube, east.ns, "driftdeck-agent", time.Now()); p.Holder != "this-replica" {
		t.Errorf("the east Lease: %+v, want held by this replica", p)
	}
	passes := func() float64 { return scrapeValue(t, a, "driftdeck_agent_passes_total", nil) }
	seen := passes()
	testcluster.Eventually(t, 10*time.Second, "five more passes of the east leader", func() bool { return passes() >= seen+5 })
	if !paused(west) || a.Leads("west") {
		t.Fatalf("the agent wrote to west (paused %v, leads west %v) while another replica holds its Lease", paused(west), a.Leads("west"))
	}
	if got := scrapeValue(t, a, "driftdeck_agent_leader", map[string]string{"context": "west"}); got != 0 {
		t.Errorf("driftdeck_agent_leader{context=west} = %v while another replica holds the Lease", got)
	}

	// The other replica stops renewing: its Lease lapses and this one takes
	// over west, then resumes the pause there.
	l, err := west.kc.Kube.CoordinationV1().Leases(west.ns).Get(ctx, "driftdeck-agent", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l.Spec.LeaseDurationSeconds = ptr.To[int32](1)
	l.Spec.RenewTime = &metav1.MicroTime{Time: time.Now().Add(-time.Minute)}
	if _, err := west.kc.Kube.CoordinationV1().Leases(west.ns).Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	testcluster.Eventually(t, 30*time.Second, "the west pause resumed once this replica holds the west Lease", func() bool { return !paused(west) })
	if !a.Leads("west") || !a.Leads("east") {
		t.Errorf("leads east %v, west %v; want both", a.Leads("east"), a.Leads("west"))
	}
}
