package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/testkit/testchangereq"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// The review of a change request in the workbench, as the second person:
// the header counts it, the unit shows it, :requests lists it, A shows the
// stored write whole and takes the reason, and the request reads approved.
func TestClusterReviewInTheWorkbench(t *testing.T) {
	c := testcluster.Shared(t)
	testchangereq.Install(t, c)
	ns := c.Namespace(t)
	app := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"web"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},
		"syncPolicy":{"automated":{"selfHeal":true}}},
		"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}}}`), &app.Object); err != nil {
		t.Fatal(err)
	}
	if _, err := dynamic.NewForConfigOrDie(c.Config()).Resource(argocd.Applications).Namespace(ns).Create(context.Background(), app, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	read := []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "list", "watch"}}}
	alice, bob := "tui-alice-"+ns[len(ns)-5:], "tui-bob-"+ns[len(ns)-5:]
	for _, who := range []string{alice, bob} {
		c.UserConfig(t, who, read, ns)
		testchangereq.Bind(t, c, ns, who, "driftdeck-change-requester")
		testchangereq.Bind(t, c, ns, who, "driftdeck-change-reviewer")
	}
	// alice asks, as `driftdeck request pause` does.
	kc, err := kube.NewCluster("prod", c.UserConfig(t, alice, read, ns), ns)
	if err != nil {
		t.Fatal(err)
	}
	exec := &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}
	ctx := context.Background()
	plan, err := exec.Plan(ctx, actions.Request{Kind: actions.Pause, Key: model.Key{Context: "prod", Engine: model.EngineArgoCD, Namespace: ns, Name: "web"}, Reason: "INC-7: hold the rollout"})
	if err != nil {
		t.Fatal(err)
	}
	cr, err := changereq.Create(ctx, kc.Dynamic, plan, changereq.Ask{Requester: alice}, time.Now())
	if err != nil {
		t.Fatal(err)
	}

	term := start(t, 200, 45, nil, "--kubeconfig", testcluster.KubeconfigIn(t, c.UserConfig(t, bob, read, ns), "prod", ns))
	term.waitFor(startup, "● live", "1 await your review", "asked  change request "+cr.Ref()+": pause asked by "+alice)
	term.send(":requests\r")
	term.waitFor(promptly, "Change requests: 1", cr.Ref(), alice, "Pending")
	term.send("A")
	term.waitFor(promptly, "Approve change request "+cr.Ref(), `"op":"test","path":"/metadata/resourceVersion"`, "digest sha256:", "Reason:")
	term.send("matches INC-7\r")
	term.waitFor(promptly, " Yes ")
	term.send("y")
	term.waitFor(promptly, "approved: "+cr.Ref())
	term.waitUntil(promptly, "the request approved in the list", func(s string) bool {
		return strings.Contains(s, "Approved") && !strings.Contains(s, "await your review")
	})
	got, err := changereq.Get(ctx, kc.Dynamic, ns, cr.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Reviews) != 1 || got.Reviews[0].User != bob || got.Reviews[0].Decision != changereq.Approve || got.Reviews[0].Reason != "matches INC-7" {
		t.Errorf("the reviews on the cluster: %+v", got.Reviews)
	}
	term.send("\x1b")
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
