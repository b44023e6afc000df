package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/testkit/testchangereq"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// A change request made and reviewed in the workbench: the first person,
// who may not write the unit, asks for its pause with the action's key; the
// second sees it counted in the header and on the unit, :requests lists
// it, A shows the stored write whole and takes the reason, and the request
// reads approved.
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
	// alice, who may not patch the Application, asks for its pause: p
	// offers the request, the plan is shown, yes stores it.
	asker := start(t, 200, 45, nil, "--kubeconfig", testcluster.KubeconfigIn(t, c.UserConfig(t, alice, read, ns), "prod", ns))
	asker.waitFor(startup, "● live", "p ask: pause")
	asker.send("p")
	asker.waitFor(promptly, "Ask for: pause", "You may not write this yourself", "Reason:")
	// The reason is waited for as it is typed, as in the demo's pause test:
	// a CI run's race-built workbench on a loaded machine drew about a key a
	// second, and the reason and the answer behind one 20 s wait did not
	// show in time.
	asker.send("INC-7: hold the rollout")
	asker.waitFor(promptly, "Reason: INC-7: hold the rollout")
	asker.send("\r")
	asker.send("\r")
	asker.waitFor(promptly, " Yes ")
	asker.send("y")
	asker.waitFor(promptly, "asked: change request "+ns)
	asker.send("q")
	if code := asker.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	kc, err := kube.NewCluster("prod", c.Config(), ns)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	list, err := changereq.List(ctx, kc.Dynamic, ns)
	if err != nil || len(list) != 1 {
		t.Fatalf("the requests after alice asked: %v %v", list, err)
	}
	cr := list[0]
	if cr.Spec.Requester != alice || cr.Spec.Action != actions.Pause || cr.Spec.Reason != "INC-7: hold the rollout" {
		t.Errorf("alice's request: %+v", cr.Spec)
	}

	term := start(t, 200, 45, nil, "--kubeconfig", testcluster.KubeconfigIn(t, c.UserConfig(t, bob, read, ns), "prod", ns))
	term.waitFor(startup, "● live", "1 await your review", "asked  change request "+cr.Ref()+": pause asked by "+alice)
	term.send(":requests\r")
	term.waitFor(promptly, "Change requests: 1", cr.Ref(), alice, "Pending")
	term.send("A")
	term.waitFor(promptly, "Approve change request "+cr.Ref(), `"op":"test","path":"/metadata/resourceVersion"`, "digest sha256:", "Reason:")
	term.send("matches INC-7")
	term.waitFor(promptly, "Reason: matches INC-7")
	term.send("\r")
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
