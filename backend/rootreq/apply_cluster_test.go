package rootreq

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/audit/audittest"
	"github.com/driftdeck/driftdeck/backend/changereq"
)

// Somebody applied other values by hand; alice asks for the plan that puts
// them back, the API server refuses her own approval, bob approves, and the
// agent applies its own plan, which reads as hers, once.
func TestClusterAnApprovedRootPlanIsAppliedByTheAgent(t *testing.T) {
	w := newWorld(t)
	w.module.User("apply", "-auto-approve", "-no-color", "-var", "size=large")
	cr := w.ask("INC-9: put the small server back")

	raw, err := dynamic.NewForConfigOrDie(w.c.Config()).Resource(changereq.GVR).Namespace(w.ns).Get(context.Background(), cr.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(raw.Object)
	if strings.Contains(string(body), "hunter2") {
		t.Fatalf("the request holds a sensitive output's value: %s", body)
	}
	if k := cr.Key("test"); k != w.root.Key() || cr.Spec.Action != "approve" {
		t.Fatalf("the request is for %v (%s); want %v", k, cr.Spec.Action, w.root.Key())
	}
	if got := strings.Join(cr.Spec.Plan.Changes, "\n"); !strings.Contains(got, "terraform_data.server: replace (") {
		t.Fatalf("the request's resources:\n%s", got)
	}
	if !strings.Contains(cr.Spec.Plan.Patch, `size = "large"`) && !strings.Contains(cr.Spec.Plan.Patch, "large") {
		t.Fatalf("the request does not show what is replaced:\n%s", cr.Spec.Plan.Patch)
	}
	if err := w.review("alice", cr, changereq.Approve); err == nil || !strings.Contains(err.Error(), "may not review it") {
		t.Fatalf("alice approved her own request: %v", err)
	}

	ap, auditPath := w.agent(true)
	ap.Pass(w.ctx)
	if got := w.get(cr); got.Status.Phase != changereq.Pending || w.endpoint() != "db-large.internal" {
		t.Fatalf("before any approval: %+v, endpoint %s", got.Status, w.endpoint())
	}
	if err := w.review("bob", cr, changereq.Approve); err != nil {
		t.Fatal(err)
	}
	ap.Pass(w.ctx)
	ap.Wait()
	got := w.get(cr)
	if got.Status.Phase != changereq.Applied || !strings.Contains(got.Status.Why, "Plan: 1 to add, 0 to change, 1 to destroy.") {
		t.Fatalf("after bob's approval: %+v", got.Status)
	}
	if e := w.endpoint(); e != "db-small.internal" {
		t.Fatalf("after the agent's apply the endpoint is %q", e)
	}
	lines := audittest.Entries(t, auditPath)
	if len(lines) != 1 || lines[0].Outcome != "done" || lines[0].Action != "apply-plan" ||
		!strings.Contains(lines[0].Approval, "asked by alice, approved by bob") || lines[0].Reason != "INC-9: put the small server back" {
		t.Fatalf("the agent's audit: %+v", lines)
	}
	ap.Pass(w.ctx)
	ap.Wait()
	if n := len(audittest.Entries(t, auditPath)); n != 1 {
		t.Fatalf("an applied request was applied again: %d audit lines", n)
	}
}

// The module changed after the request (another apply by hand): the agent's
// plan is not the one approved, so nothing is applied and the request is
// stale, naming the resource. An agent that does not read the module
// leaves an approved request to one that does.
func TestClusterARootRequestWhoseModuleChangedIsStale(t *testing.T) {
	w := newWorld(t)
	w.module.User("apply", "-auto-approve", "-no-color", "-var", "size=large")
	cr := w.ask("INC-10: put the small server back")
	if err := w.review("bob", cr, changereq.Approve); err != nil {
		t.Fatal(err)
	}

	elsewhere, _ := w.agent(false)
	elsewhere.Pass(w.ctx)
	if got := w.get(cr); got.Status.Phase == changereq.Applying || got.Status.Phase.Closed() {
		t.Fatalf("an agent that does not read the module took the request: %+v", got.Status)
	}

	w.module.User("apply", "-auto-approve", "-no-color", "-var", "size=medium")
	ap, auditPath := w.agent(true)
	ap.Pass(w.ctx)
	ap.Wait()
	got := w.get(cr)
	if got.Status.Phase != changereq.Stale || !strings.Contains(got.Status.Why, "terraform_data.server: now replace") {
		t.Fatalf("a request whose module changed: %+v", got.Status)
	}
	if e := w.endpoint(); e != "db-medium.internal" {
		t.Fatalf("a stale request changed the module: endpoint %q", e)
	}
	if lines := audittest.Entries(t, auditPath); len(lines) != 0 {
		t.Fatalf("nothing was applied, yet the audit says %+v", lines)
	}
}
