package livedescribe

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/driftdeck/driftdeck/backend/agent"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// The detail view says who ends an expiring pause: the description reads the
// agents' Lease for it, and only for it.
func TestDescribeReadsTheAgentOnlyForAnExpiringPause(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := demo.Start(ctx, demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := &Describer{Cluster: func(string) (*kube.Cluster, bool) { return c, true }}
	paused := model.Key{Context: c.Context, Engine: model.EngineArgoCD, Namespace: "argocd", Name: "kyverno"}
	describeKey := func(k model.Key) *describe.Detail {
		t.Helper()
		det, err := d.Describe(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		return det
	}

	if a := describeKey(paused).Agent; a == nil || a.Running || a.Unknown != "" {
		t.Fatalf("an expiring pause without an agent's Lease: agent %+v; want read, not running", a)
	}
	holder, seconds := "driftdeck-agent-7f9c", int32(15)
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: agent.DefaultLeaseNamespace, Name: agent.DefaultLeaseName},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &seconds,
			RenewTime: &metav1.MicroTime{Time: time.Now()}},
	}
	if _, err := c.Kube.CoordinationV1().Leases(lease.Namespace).Create(ctx, lease, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if a := describeKey(paused).Agent; a == nil || !a.Running || a.Holder != holder {
		t.Errorf("an expiring pause with the Lease held and renewed: agent %+v; want running, held by %s", a, holder)
	}
	// An agent with its own --leader-election-namespace and -id is found by
	// its Lease's label.
	if err := c.Kube.CoordinationV1().Leases(lease.Namespace).Delete(ctx, lease.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	own := lease.DeepCopy()
	own.Namespace, own.Name, own.Labels, own.Spec.HolderIdentity = "argocd", "team-agent", map[string]string{agent.LeaseLabel: "true"}, ptr.To("team-replica-1")
	if _, err := c.Kube.CoordinationV1().Leases(own.Namespace).Create(ctx, own, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if a := describeKey(paused).Agent; a == nil || !a.Running || a.Holder != "team-replica-1" {
		t.Errorf("an expiring pause with an agent holding the Lease argocd/team-agent: agent %+v; want running", a)
	}
	if a := describeKey(model.Key{Context: c.Context, Engine: model.EngineArgoCD, Namespace: "argocd", Name: "search-indexer"}).Agent; a != nil {
		t.Errorf("a unit without a pause: agent %+v; want the Lease not read", a)
	}
}
