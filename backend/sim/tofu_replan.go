package sim

import (
	"context"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/tofu"
)

// generations remembers the generation each Terraform had when the
// controller last looked, to tell a spec change it sees from the estate's
// seed.
type generations struct {
	mu   sync.Mutex
	seen map[objectKey]int64
}

// saw records the generation and returns the one seen before (0: first look).
func (g *generations) saw(k objectKey, gen int64) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen == nil {
		g.seen = map[objectKey]int64{}
	}
	prev := g.seen[k]
	g.seen[k] = gen
	return prev
}

// replanStale plays tofu-controller dropping a stale plan and planning
// again (tf_controller.go: a pending plan, status.lastPlannedGeneration set
// and not the generation, and no approval of that plan): the new plan is
// made from the same source revision, so it has the id upstream's planid
// gives that revision, and lastPlannedGeneration becomes the generation.
// The simulation does this when it reconciles because of the spec change
// or a reconcile request; a plan the estate seeds as stale stays so until
// then, as it would for a controller that has not got to it yet.
func (x *Flux) replanStale(ctx context.Context, obj *unstructured.Unstructured, changed bool, status map[string]any) bool {
	st := func(path ...string) string {
		s, _, _ := unstructured.NestedString(obj.Object, append([]string{"status"}, path...)...)
		return s
	}
	planned, _, _ := unstructured.NestedInt64(obj.Object, "status", "lastPlannedGeneration")
	pending := st("plan", "pending")
	if !changed || planned == 0 || planned == obj.GetGeneration() || pending == "" || shouldApply(obj, pending) {
		return false
	}
	revision := firstNonEmpty(st("lastAttemptedRevision"), st("lastPlannedRevision"))
	id := planIDOf(revision)
	now := time.Now()
	spec := func(path ...string) string {
		s, _, _ := unstructured.NestedString(obj.Object, append([]string{"spec"}, path...)...)
		return s
	}
	planOnly, _, _ := unstructured.NestedBool(obj.Object, "spec", "planOnly")
	force, _, _ := unstructured.NestedBool(obj.Object, "spec", "force")
	destroy, _, _ := unstructured.NestedBool(obj.Object, "spec", "destroy")
	ready := "Plan generated: set approvePlan: \"" + id + "\" to approve this plan."
	switch {
	case planOnly:
		ready = "Plan generated: This object is in the plan only mode."
	case force || spec("approvePlan") == tofu.ApproveAuto:
		ready = "Plan generated"
	}
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	cs := readConditions(raw)
	cs.set("Plan", "True", "TerraformPlannedWithChanges", "Plan generated", now)
	cs.set("Ready", "Unknown", "TerraformPlannedWithChanges", ready, now)
	cs.remove("Reconciling")
	status["plan"] = map[string]any{"lastApplied": st("plan", "lastApplied"), "pending": id, "isDestroyPlan": destroy, "isDriftDetectionPlan": false}
	status["lastAttemptedRevision"], status["lastPlannedRevision"] = revision, revision
	status["lastPlannedGeneration"] = obj.GetGeneration()
	status["observedGeneration"] = obj.GetGeneration()
	status["lastPlanAt"] = timestamp(now)
	status["conditions"] = cs.raw()
	x.rec.event(ctx, obj, "Normal", "TerraformPlannedWithChanges", "Plan generated: "+id+" (the spec changed since plan "+pending+")")
	return true
}

// shouldApply is tofu-controller's test of an approval: spec.force, auto,
// or spec.approvePlan naming the pending plan or a prefix of it.
func shouldApply(obj *unstructured.Unstructured, pending string) bool {
	force, _, _ := unstructured.NestedBool(obj.Object, "spec", "force")
	approve, _, _ := unstructured.NestedString(obj.Object, "spec", "approvePlan")
	return force || approve == tofu.ApproveAuto || (approve != "" && strings.HasPrefix(pending, approve))
}

// planIDOf is the plan id tofu-controller gives a source revision:
// "plan-<branch>-<first 10 characters of the hash>" for "<branch>@sha1:<hash>"
// or the older "<branch>/<hash>", else "plan-" and the first 10 characters.
func planIDOf(revision string) string {
	first10 := func(s string) string { return s[:min(len(s), 10)] }
	if branch, digest, ok := strings.Cut(revision, "@"); ok {
		_, hash, _ := strings.Cut(digest, ":")
		return "plan-" + branch + "-" + first10(hash)
	}
	if parts := strings.Split(revision, "/"); len(parts) == 2 {
		return "plan-" + parts[0] + "-" + first10(parts[1])
	}
	return "plan-" + first10(revision)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
