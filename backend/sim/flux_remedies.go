package sim

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/flux"
)

// forceUnlock plays tofu-controller breaking a held state lock: with
// spec.tfstate.forceUnlock "yes" and lockIdentifier naming status.lock.pending
// (or "auto", any lock), the lock is released and the run it blocked goes on
// (here: ends with its outputs written).
func (x *Flux) forceUnlock(ctx context.Context, obj *unstructured.Unstructured, status map[string]any) {
	pending, _, _ := unstructured.NestedString(obj.Object, "status", "lock", "pending")
	mode, _, _ := unstructured.NestedString(obj.Object, "spec", "tfstate", "forceUnlock")
	id, _, _ := unstructured.NestedString(obj.Object, "spec", "tfstate", "lockIdentifier")
	if pending == "" || !(mode == "auto" || (mode == "yes" && id == pending)) {
		return
	}
	now := time.Now()
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	cs := readConditions(raw)
	cs.remove("StateLocked")
	cs.remove("Stalled")
	cs.remove("Reconciling")
	revision, _, _ := unstructured.NestedString(obj.Object, "status", "lastAttemptedRevision")
	cs.set("Ready", "True", "TerraformOutputsWritten", "Outputs written: "+revision, now)
	status["lock"] = map[string]any{"lastApplied": pending, "pending": ""}
	status["conditions"] = cs.raw()
	status["observedGeneration"] = obj.GetGeneration()
	x.rec.event(ctx, obj, "Normal", "ForceUnlock", "Unlocked the state lock "+pending)
}

// helmRemedies plays helm-controller's forceAt and resetAt: a new resetAt
// clears the failure counts (the release is retried again); a new forceAt
// runs a one-off upgrade that replaces what cannot be patched (here it
// succeeds), clearing the counts too. Both are handled by recording the
// token in status.
func (x *Flux) helmRemedies(ctx context.Context, obj *unstructured.Unstructured, status map[string]any) {
	ann := obj.GetAnnotations()
	force, reset := ann[flux.AnnotationForceAt], ann[flux.AnnotationResetAt]
	handledForce, _, _ := unstructured.NestedString(obj.Object, "status", "lastHandledForceAt")
	handledReset, _, _ := unstructured.NestedString(obj.Object, "status", "lastHandledResetAt")
	newForce, newReset := force != "" && force != handledForce, reset != "" && reset != handledReset
	if !newForce && !newReset {
		return
	}
	now := time.Now()
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	cs := readConditions(raw)
	cs.remove("Stalled")
	status["failures"], status["installFailures"], status["upgradeFailures"] = 0, 0, 0
	if newReset {
		status["lastHandledResetAt"] = reset
		cs.set("Reconciling", "True", "ProgressingWithRetry", "retrying after the failure counts were reset", now)
	}
	if newForce {
		status["lastHandledForceAt"] = force
		cs.remove("Reconciling")
		cs.set("Released", "True", "UpgradeSucceeded", "Helm upgrade succeeded (forced)", now)
		cs.set("Ready", "True", "UpgradeSucceeded", "Helm upgrade succeeded for release "+obj.GetNamespace()+"/"+obj.GetName()+" (forced)", now)
		x.rec.event(ctx, obj, "Normal", "UpgradeSucceeded", "Helm upgrade succeeded (forced)")
	}
	status["conditions"] = cs.raw()
}
