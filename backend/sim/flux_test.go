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
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// The simulated tofu-controller on a real apiserver with tofu-controller's
// own CRD: requests are handled (also while suspended), an approved plan is
// applied, never while suspended; a spec change it sees drops the pending
// plan and plans again, as upstream does: a plan of the current generation,
// with the id upstream gives the source revision.
func TestClusterFluxControllers(t *testing.T) {
	c := testcluster.Start(t, testcluster.Options{CRDSets: testcluster.UpstreamCRDSetsNamed(t, "flux", "tofu-controller-v0.16.5")})
	dyn := clusterClient(t, c)
	ns := c.Namespace(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = sim.NewFlux(dyn, sim.FluxOptions{Namespace: ns}).Run(ctx) }()
	ri := dyn.Resource(tofu.Terraforms[0]).Namespace(ns)
	const plan = "plan-main-2222222222"

	mk := func(name, extraSpec string, plannedGeneration ...int64) {
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
		planned := created.GetGeneration()
		if len(plannedGeneration) > 0 {
			planned = plannedGeneration[0]
		}
		created.Object["status"] = map[string]any{"lastPlannedGeneration": planned, "lastPlannedRevision": "main@sha1:2222",
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

	// Seen before the spec changes (its request handled), then changed.
	mk("replanned", ``)
	patch("replanned", `{"metadata":{"annotations":{"`+flux.AnnotationRequestedAt+`":"t0"}}}`)
	eventually("the request handled", func() bool { return unit("replanned").Tofu.LastHandledAt == "t0" })
	patch("replanned", `{"spec":{"path":"./eks-v2"}}`) // a new generation
	const replan = "plan-main-2222"                    // planid of main@sha1:2222
	eventually("the stale plan replaced by a plan of the new spec", func() bool {
		u := unit("replanned")
		return u.Tofu.PendingPlan == replan && !u.Tofu.PlanStale && u.Tofu.LastPlannedGen == 2 && u.Run == model.AwaitingApproval
	})
	if u := unit("replanned"); !strings.Contains(u.RunReason, replan) {
		t.Errorf("the new plan waits for approval of its id: %q", u.RunReason)
	}
	// The new plan is approved and applied like any other.
	patch("replanned", `{"spec":{"approvePlan":"`+replan+`"}}`)
	eventually("the new plan applied", func() bool { return unit("replanned").Tofu.LastAppliedPlan == replan })

	// A plan seeded stale (the estate's) stays so until a reconcile request.
	mk("seeded-stale", ``, 7)

	mk("approved", ``)
	if u := unit("approved"); u.Run != model.AwaitingApproval {
		t.Fatalf("before approval: %v %q", u.Run, u.RunReason)
	}
	patch("approved", `{"spec":{"approvePlan":"`+plan+`"}}`)
	eventually("the approved plan applied", func() bool {
		u := unit("approved")
		return u.Tofu.PendingPlan == "" && u.Tofu.LastAppliedPlan == plan && u.Applied == "main@sha1:2222" && u.Run == model.Idle && u.Sync == model.InSync
	})
	if u := unit("seeded-stale"); u.Tofu.PendingPlan != plan || !u.Tofu.PlanStale || !strings.Contains(u.RunReason, "stale") {
		t.Fatalf("a plan of an older spec: %+v %q", u.Tofu, u.RunReason)
	}
	patch("seeded-stale", `{"metadata":{"annotations":{"`+flux.AnnotationRequestedAt+`":"t9"}}}`)
	eventually("the seeded stale plan replanned on a reconcile request", func() bool {
		u := unit("seeded-stale")
		return u.Tofu.PendingPlan == replan && !u.Tofu.PlanStale
	})
}
