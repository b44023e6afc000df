package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/sim"
	"github.com/driftdeck/driftdeck/backend/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// The simulated tofu-controller on a real apiserver: requests are handled
// (also while suspended), an approved plan is applied, never while
// suspended; a spec change leaves the pending plan stale.
func TestClusterFluxControllers(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := clusterClient(t, c)
	ns := c.Namespace(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = sim.NewFlux(dyn, sim.FluxOptions{Namespace: ns}).Run(ctx) }()
	ri := dyn.Resource(tofu.Terraforms[0]).Namespace(ns)
	const plan = "plan-main-2222222222"

	mk := func(name, extraSpec string) {
		var o unstructured.Unstructured
		body := fmt.Sprintf(`{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform","metadata":{"name":%q},
			"spec":{"interval":"1h","path":"./eks","sourceRef":{"kind":"GitRepository","name":"infra"}%s}}`, name, extraSpec)
		if err := json.Unmarshal([]byte(body), &o.Object); err != nil {
			t.Fatal(err)
		}
		created, err := ri.Create(ctx, &o, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created.Object["status"] = map[string]any{"lastPlannedGeneration": created.GetGeneration(), "lastPlannedRevision": "main@sha1:2222",
			"lastAppliedRevision": "main@sha1:1111", "plan": map[string]any{"pending": plan},
			"conditions": []any{map[string]any{"type": "Ready", "status": "Unknown", "reason": "TerraformPlannedWithChanges", "message": "Plan generated", "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}}}
		if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	patch := func(name, body string) {
		if _, err := ri.Patch(ctx, name, types.MergePatchType, []byte(body), metav1.PatchOptions{FieldManager: "flux-client-side-apply"}); err != nil {
			t.Fatal(err)
		}
	}
	unit := func(name string) *model.Unit {
		o, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tofu.Convert("test", o.Object)
	}
	eventually := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if ok() {
				return
			}
		}
		t.Fatalf("%s: never", what)
	}

	mk("suspended", `,"suspend":true`)
	patch("suspended", `{"metadata":{"annotations":{"`+flux.AnnotationRequestedAt+`":"t1"}},"spec":{"approvePlan":"`+plan+`"}}`)
	eventually("a request on a suspended Terraform handled", func() bool { return unit("suspended").Tofu.LastHandledAt == "t1" })
	if u := unit("suspended"); u.Tofu.PendingPlan != plan || u.Applied != "main@sha1:1111" {
		t.Fatalf("a suspended Terraform applied its plan: pending %q applied %q", u.Tofu.PendingPlan, u.Applied)
	}

	mk("stale", ``)
	patch("stale", `{"spec":{"path":"./eks-v2"}}`) // a new generation
	if u := unit("stale"); u.Tofu.PendingPlan != plan || !u.Tofu.PlanStale || !strings.Contains(u.RunReason, "stale") {
		t.Fatalf("a plan of an older spec: %+v %q", u.Tofu, u.RunReason)
	}

	mk("approved", ``)
	if u := unit("approved"); u.Run != model.AwaitingApproval {
		t.Fatalf("before approval: %v %q", u.Run, u.RunReason)
	}
	patch("approved", `{"spec":{"approvePlan":"`+plan+`"}}`)
	eventually("the approved plan applied", func() bool {
		u := unit("approved")
		return u.Tofu.PendingPlan == "" && u.Tofu.LastAppliedPlan == plan && u.Applied == "main@sha1:2222" && u.Run == model.Idle && u.Sync == model.InSync
	})
}
