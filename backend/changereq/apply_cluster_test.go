package changereq

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/audit/audittest"
)

// One person asks, the API server refuses her own approval, another
// approves, and the agent writes the stored bytes, once.
func TestClusterAnApprovedRequestIsAppliedAsStored(t *testing.T) {
	w := newWorld(t)
	w.app("web")
	cr := w.ask("alice", "web", Ask{})
	if p, _ := cr.State(time.Now()); p != Pending || cr.Spec.Requester != "alice" || !strings.HasPrefix(cr.Spec.Plan.Digest, "sha256:") {
		t.Fatalf("the new request: phase %s, requester %q, digest %q", p, cr.Spec.Requester, cr.Spec.Plan.Digest)
	}
	_, err := w.review("alice", cr, Approve, "mine, and fine")
	refusedBecause(t, err, "alice asked for this change and may not review it")

	ap, rec, auditPath := w.agentApplier(nil)
	ap.Pass(context.Background())
	if got := w.get(cr); got.Status.Phase != Pending || len(rec.To("/applications/web")) != 0 {
		t.Fatalf("before any approval the agent wrote %d patches, status %+v", len(rec.To("/applications/web")), got.Status)
	}

	if _, err := w.review("bob", cr, Approve, "matches the incident plan"); err != nil {
		t.Fatal(err)
	}
	ap.Pass(context.Background())
	got := w.get(cr)
	if got.Status.Phase != Applied || got.Status.Agent != agentUser {
		t.Fatalf("after bob's approval: %+v", got.Status)
	}
	sent := rec.To("/applications/web")
	if len(sent) != 1 || string(sent[0].Body) != cr.Spec.Plan.Patch {
		t.Fatalf("the agent sent %d patches to the app; want the stored one, byte for byte:\nstored %s\nsent   %v", len(sent), cr.Spec.Plan.Patch, sent)
	}
	app := w.getApp("web")
	if _, auto, _ := unstructured.NestedMap(app.Object, "spec", "syncPolicy", "automated"); auto {
		t.Errorf("the app still syncs automatically: %v", app.Object["spec"])
	}
	if by := app.GetAnnotations()["driftdeck.io/paused-by"]; by != "alice" {
		t.Errorf("the pause records %q as its author; want the requester, alice (annotations %v)", by, app.GetAnnotations())
	}
	events := strings.Join(w.events("web"), "\n")
	for _, want := range []string{agentUser, "INC-7: hold the rollout", "asked by alice", `approved by bob ("matches the incident plan")`} {
		if !strings.Contains(events, want) {
			t.Errorf("the app's Events do not say %q:\n%s", want, events)
		}
	}
	if lines := audittest.Entries(t, auditPath); len(lines) != 1 || !strings.Contains(lines[0].Approval, "approved by bob") || lines[0].Outcome != "done" {
		t.Errorf("the agent's audit: %+v", lines)
	}
	ap.Pass(context.Background())
	if n := len(rec.To("/applications/web")); n != 1 {
		t.Errorf("an applied request was written again: %d patches", n)
	}
	_, err = w.review("carol", got, Approve, "late")
	var closed *ErrClosed
	if !errors.As(err, &closed) || closed.Phase != Applied {
		t.Errorf("a review of an applied request: %v", err)
	}
}

// The unit changed in what the plan reads after the request: nothing is
// written and the request reads stale, naming what changed.
func TestClusterARequestWhoseUnitChangedIsStale(t *testing.T) {
	w := newWorld(t)
	w.app("api")
	cr := w.ask("alice", "api", Ask{})
	if _, err := w.review("bob", cr, Approve, "ok"); err != nil {
		t.Fatal(err)
	}
	// Someone turns self-heal off by hand meanwhile.
	if _, err := w.admin.Resource(argocd.Applications).Namespace(w.ns).Patch(context.Background(), "api", types.MergePatchType,
		[]byte(`{"spec":{"syncPolicy":{"automated":{"selfHeal":false}}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	before := w.getApp("api").GetResourceVersion()
	ap, rec, _ := w.agentApplier(nil)
	ap.Pass(context.Background())
	got := w.get(cr)
	if got.Status.Phase != Stale || !strings.Contains(got.Status.Why, "changed since the request") || !strings.Contains(got.Status.Why, "selfHeal") {
		t.Errorf("status %+v; want Stale, naming the selfHeal change", got.Status)
	}
	if len(rec.To("/applications/api")) > 1 || w.getApp("api").GetResourceVersion() != before {
		t.Errorf("the app was written: %d patches sent, resourceVersion %s → %s", len(rec.To("/applications/api")), before, w.getApp("api").GetResourceVersion())
	}
}

// A request approved but not applied before it expires is never applied.
func TestClusterAnExpiredRequestIsNeverApplied(t *testing.T) {
	w := newWorld(t)
	w.app("jobs")
	cr := w.ask("alice", "jobs", Ask{For: time.Hour})
	if _, err := w.review("bob", cr, Approve, "ok"); err != nil {
		t.Fatal(err)
	}
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	ap, rec, _ := w.agentApplier(later)
	ap.Pass(context.Background())
	if got := w.get(cr); got.Status.Phase != Expired {
		t.Errorf("status %+v; want Expired", got.Status)
	}
	if n := len(rec.To("/applications/jobs")); n != 0 {
		t.Errorf("an expired request was written: %d patches", n)
	}
	_, err := w.review("carol", w.get(cr), Approve, "ok")
	var closed *ErrClosed
	if !errors.As(err, &closed) || closed.Phase != Expired {
		t.Errorf("a review of an expired request: %v", err)
	}
}

// Two agents that both believe they lead: the request is applied once.
func TestClusterTwoAgentsApplyARequestOnce(t *testing.T) {
	w := newWorld(t)
	w.app("shop")
	cr := w.ask("alice", "shop", Ask{Approvals: 2})
	if _, err := w.review("bob", cr, Approve, "ok"); err != nil {
		t.Fatal(err)
	}
	one, recOne, _ := w.agentApplier(nil)
	one.Pass(context.Background())
	if got := w.get(cr); got.Status.Phase != Pending || !strings.Contains(got.Status.Why, "1 of 2 approvals") {
		t.Fatalf("with one of two approvals: %+v", got.Status)
	}
	if _, err := w.review("carol", w.get(cr), Approve, "ok too"); err != nil {
		t.Fatal(err)
	}
	two, recTwo, _ := w.agentApplier(nil)
	var wg sync.WaitGroup
	for _, ap := range []*Applier{one, two} {
		wg.Go(func() { ap.Pass(context.Background()) })
	}
	wg.Wait()
	if got := w.get(cr); got.Status.Phase != Applied {
		t.Errorf("status %+v; want Applied", got.Status)
	}
	if n := len(recOne.To("/applications/shop")) + len(recTwo.To("/applications/shop")); n != 1 {
		t.Errorf("the two agents wrote the app %d times; want once", n)
	}
}

// A namespace made change-request-only by the shipped example policy: even
// a cluster administrator may not edit its units by hand, and an approved
// request is applied by the agent.
func TestClusterAChangeRequestOnlyNamespaceTakesChangesThroughRequests(t *testing.T) {
	w := newWorld(t)
	w.app("billing")
	ctx := context.Background()
	ns, err := w.c.Kube(t).CoreV1().Namespaces().Get(ctx, w.ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.Labels["driftdeck.io/change-requests-only"] = "true"
	if _, err := w.c.Kube(t).CoreV1().Namespaces().Update(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	byHand := []byte(`{"spec":{"syncPolicy":null}}`)
	var last error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		// The policy's namespace selector follows the label within moments.
		if _, last = w.admin.Resource(argocd.Applications).Namespace(w.ns).Patch(ctx, "billing", types.MergePatchType, byHand, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}); last != nil {
			break
		}
	}
	refusedBecause(t, last, "takes changes through driftdeck change requests only")

	cr := w.ask("alice", "billing", Ask{})
	if _, err := w.review("bob", cr, Approve, "ok"); err != nil {
		t.Fatal(err)
	}
	ap, _, _ := w.agentApplier(nil)
	ap.Pass(ctx)
	if got := w.get(cr); got.Status.Phase != Applied {
		t.Errorf("the agent could not apply the approved request in a change-request-only namespace: %+v", got.Status)
	}
}
