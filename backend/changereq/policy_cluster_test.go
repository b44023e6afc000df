package changereq

import (
	"context"
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// Every rule of deploy/change-requests/policy.yaml, met by plain clients
// that are not driftdeck: the API server refuses, whoever writes.
func TestClusterThePolicyNotTheClientRefuses(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	alice, bob, carol := w.people["alice"].dyn, w.people["bob"].dyn, w.people["carol"].dyn
	requests := func(d dynamic.Interface) dynamic.ResourceInterface { return d.Resource(GVR).Namespace(w.ns) }

	_, err := requests(alice).Create(ctx, w.rawRequest("bob", "forged"), metav1.CreateOptions{})
	refusedBecause(t, err, "spec.request.requester must name the user who creates the request: alice")

	withReview := w.rawRequest("alice", "prereviewed")
	if err := unstructured.SetNestedSlice(withReview.Object, []any{map[string]any{"user": "bob", "decision": "approve", "reason": "ok", "digest": "sha256:00"}}, "spec", "reviews"); err != nil {
		t.Fatal(err)
	}
	_, err = requests(alice).Create(ctx, withReview, metav1.CreateOptions{})
	refusedBecause(t, err, "a change request is created without reviews")

	cr, err := requests(alice).Create(ctx, w.rawRequest("alice", "hold"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("alice asks in her own name: %v", err)
	}
	name := cr.GetName()
	patch := func(d dynamic.Interface, ops string, sub ...string) error {
		_, err := requests(d).Patch(ctx, name, types.JSONPatchType, []byte(ops), metav1.PatchOptions{}, sub...)
		return err
	}
	review := func(user, decision string) string {
		b, _ := json.Marshal(map[string]any{"user": user, "decision": decision, "reason": "looked at it", "digest": "sha256:00"})
		return string(b)
	}
	add := func(r string) string { return `[{"op":"add","path":"/spec/reviews","value":[` + r + `]}]` }
	appendOne := func(r string) string { return `[{"op":"add","path":"/spec/reviews/-","value":` + r + `}]` }

	refusedBecause(t, patch(alice, add(review("alice", "approve"))), "alice asked for this change and may not review it")
	refusedBecause(t, patch(bob, add(review("carol", "approve"))), "a review must be written by its author: bob")
	refusedBecause(t, patch(bob, add(`{"user":"bob","decision":"approve","reason":"ok","digest":"sha256:ff"}`)), "a review must name the digest of the plan it reviews")
	refusedBecause(t, patch(bob, add(review("bob", "cancel"))), "only the requester may cancel")
	if err := patch(bob, add(review("bob", "approve"))); err != nil {
		t.Fatalf("bob approves alice's request: %v", err)
	}
	refusedBecause(t, patch(bob, appendOne(review("bob", "reject"))), "bob has already reviewed this change request")
	refusedBecause(t, patch(alice, `[{"op":"replace","path":"/spec/request/plan/patch","value":"[{\"op\":\"remove\",\"path\":\"/spec/syncPolicy\"}]"}]`),
		"spec.request is immutable")
	refusedBecause(t, patch(carol, `[{"op":"replace","path":"/spec/request/approvalsRequired","value":2}]`), "spec.request is immutable")
	refusedBecause(t, patch(carol, `[{"op":"replace","path":"/spec/reviews/0/reason","value":"rubber stamp"}]`), "spec.reviews is append-only")
	refusedBecause(t, patch(carol, `[{"op":"remove","path":"/spec/reviews/0"}]`), "spec.reviews is append-only")
	refusedBecause(t, patch(carol, `[{"op":"add","path":"/spec/reviews/-","value":`+review("carol", "approve")+`},{"op":"add","path":"/spec/reviews/-","value":{"user":"carol","decision":"reject","reason":"x","digest":"sha256:00"}}]`),
		"one review at a time")
	// RBAC keeps people from status; the policy keeps even an administrator.
	refusedBecause(t, patch(bob, `[{"op":"add","path":"/status","value":{"phase":"Applied"}}]`, "status"), `cannot patch resource "changerequests/status"`)
	refusedBecause(t, patch(w.admin, `[{"op":"add","path":"/status","value":{"phase":"Applied"}}]`, "status"),
		"only the driftdeck agent writes the status of a change request")

	agent := dynamic.NewForConfigOrDie(w.agent)
	if err := patch(agent, `[{"op":"add","path":"/status","value":{"phase":"Rejected","why":"test"}}]`, "status"); err != nil {
		t.Fatalf("the agent writes the status: %v", err)
	}
	refusedBecause(t, patch(carol, appendOne(review("carol", "approve"))), "this change request is closed (Rejected)")

	got := w.get(&ChangeRequest{Namespace: w.ns, Name: name})
	if len(got.Reviews) != 1 || got.Reviews[0].User != "bob" || got.Spec.Requester != "alice" || got.Spec.Plan.Patch != "[]" {
		t.Errorf("after the refusals the request reads %+v; want alice's, with bob's review only", got)
	}
}
