package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/audit/audittest"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testchangereq"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// Two agent replicas sharing a Lease, with the shipped change-request
// manifests: an approved request is applied once, by the leader, under the
// agent's ServiceAccount.
func TestClusterTwoAgentsApplyAnApprovedRequestOnce(t *testing.T) {
	w := newWorld(t)
	testchangereq.Install(t, w.c)
	w.app("web", `"automated":{"selfHeal":true}`, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	read := []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "list", "watch"}}}
	people := map[string]*kube.Cluster{}
	for _, name := range []string{"alice", "bob"} {
		cfg := w.c.UserConfig(t, name, read, w.ns)
		testchangereq.Bind(t, w.c, w.ns, name, "driftdeck-change-requester")
		testchangereq.Bind(t, w.c, w.ns, name, "driftdeck-change-reviewer")
		kc, err := kube.NewCluster("test", cfg, w.ns)
		if err != nil {
			t.Fatal(err)
		}
		people[name] = kc
	}
	ctx := context.Background()
	alice := &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return people["alice"], true }}
	plan, err := alice.Plan(ctx, actions.Request{Kind: actions.Pause, Key: model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: w.ns, Name: "web"}, Reason: "INC-9"})
	if err != nil {
		t.Fatal(err)
	}
	cr, err := changereq.Create(ctx, people["alice"].Dynamic, plan, changereq.Ask{Requester: "alice"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := changereq.AddReview(ctx, people["bob"].Dynamic, cr, changereq.Review{User: "bob", Decision: changereq.Approve, Reason: "ok"}, time.Now()); err != nil {
		t.Fatal(err)
	}

	asAgent, err := kube.NewCluster("test", testchangereq.AgentConfig(t, w.c), w.ns)
	if err != nil {
		t.Fatal(err)
	}
	var audits []string
	replica := func(id string) *Agent {
		a := w.agent(&Election{Context: "test", Client: w.kc.Kube, Namespace: w.ns, Name: "driftdeck-agent", Identity: id, LeaseDuration: 3 * time.Second})
		path := filepath.Join(t.TempDir(), id+".jsonl")
		log, err := audit.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		audits = append(audits, path)
		a.RequestExec = &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return asAgent, true }, Audit: log}
		a.RequestNamespace = w.ns
		return a
	}
	first, second := replica("first"), replica("second")
	start(t, first)
	start(t, second)
	var got *changereq.ChangeRequest
	testcluster.Eventually(t, 30*time.Second, "the request applied", func() bool {
		got, err = changereq.Get(ctx, w.dyn, cr.Namespace, cr.Name)
		return err == nil && got.Status.Phase == changereq.Applied
	})
	time.Sleep(time.Second) // a few more passes of both replicas
	var applied []audit.Entry
	for _, path := range audits {
		for _, e := range audittest.Entries(t, path) {
			if e.Unit == "argocd/"+w.ns+"/web" {
				applied = append(applied, e)
			}
		}
	}
	if len(applied) != 1 || applied[0].Outcome != "done" || applied[0].Actor != testchangereq.AgentUser || !strings.Contains(applied[0].Approval, "asked by alice, approved by bob") {
		t.Errorf("the replicas' audit lines about the unit: %+v; want one done write by the agent naming alice and bob", applied)
	}
	if _, auto, _ := unstructured.NestedMap(w.get("web").Object, "spec", "syncPolicy", "automated"); auto {
		t.Error("the app still syncs by itself after the applied pause")
	}
	if got.Status.Agent != testchangereq.AgentUser {
		t.Errorf("the status names %q as the agent", got.Status.Agent)
	}
}
