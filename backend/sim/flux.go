package sim

import (
	"context"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// FluxOptions configure the simulated Flux and tofu controllers.
type FluxOptions struct {
	Namespace string
	Events    kubernetes.Interface
	OnError   func(error)
}

// Flux plays kustomize-controller, helm-controller and tofu-controller by
// their rules for what driftdeck writes (DESIGN.md section 3): a
// reconcile.fluxcd.io/requestedAt is handled by copying it into
// status.lastHandledReconcileAt, also while suspended (and then nothing is
// applied); a Terraform whose spec.approvePlan names its pending plan (the
// id or, as upstream accepts, a prefix of it) and was planned from the
// current generation has that plan applied, unless suspended or plan-only;
// a plan made before a spec change that nothing approves is replaced by a
// new one (tofu_replan.go); a held state lock is broken on
// spec.tfstate.forceUnlock, and a
// HelmRelease's forceAt and resetAt are handled (flux_remedies.go). Builds,
// dependencies and other Helm actions are not simulated: the estate's
// objects keep the states they were seeded with.
type Flux struct {
	dyn   dynamic.Interface
	loops []*loop
	rec   recorder
	gens  generations // of the Terraforms, for re-planning (tofu_replan.go)
}

// NewFlux returns the controllers; Run starts them.
func NewFlux(dyn dynamic.Interface, opts FluxOptions) *Flux {
	x := &Flux{dyn: dyn, rec: recorder{kube: opts.Events, component: "tofu-controller", onError: opts.OnError}}
	for _, gvr := range []schema.GroupVersionResource{flux.Kustomizations[0], flux.HelmReleases[0], tofu.Terraforms[0]} {
		l := newLoop(func(ctx context.Context, k objectKey) (time.Duration, error) { return x.reconcile(ctx, gvr, k) }, opts.OnError, time.Second)
		l.inform(dyn, gvr, opts.Namespace, selfKey)
		x.loops = append(x.loops, l)
	}
	return x
}

// Run reconciles until ctx ends.
func (x *Flux) Run(ctx context.Context) error {
	done := make(chan struct{})
	for _, l := range x.loops {
		go func() { l.run(ctx, 1, nil); done <- struct{}{} }()
	}
	for range x.loops {
		<-done
	}
	return nil
}

func (x *Flux) reconcile(ctx context.Context, gvr schema.GroupVersionResource, k objectKey) (time.Duration, error) {
	ri := x.dyn.Resource(gvr).Namespace(k.namespace)
	obj, err := ri.Get(ctx, k.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	status := map[string]any{}
	requested := obj.GetAnnotations()[flux.AnnotationRequestedAt]
	handled, _, _ := unstructured.NestedString(obj.Object, "status", "lastHandledReconcileAt")
	if requested != "" && requested != handled {
		status["lastHandledReconcileAt"] = requested
	}
	suspended, _, _ := unstructured.NestedBool(obj.Object, "spec", "suspend")
	switch {
	case suspended:
	case gvr.Resource == tofu.Terraforms[0].Resource:
		x.forceUnlock(ctx, obj, status)
		prev := x.gens.saw(k, obj.GetGeneration())
		changed := (prev != 0 && prev != obj.GetGeneration()) || status["lastHandledReconcileAt"] != nil
		if !x.replanStale(ctx, obj, changed, status) {
			x.applyApproved(ctx, obj, status)
		}
	case gvr.Resource == flux.HelmReleases[0].Resource:
		x.helmRemedies(ctx, obj, status)
	}
	if len(status) == 0 {
		return 0, nil
	}
	_, err = mergePatch(ctx, ri, k.name, managerFor(gvr), map[string]any{"status": status}, "status")
	return 0, err
}

// applyApproved adds to status the result of applying an approved plan.
func (x *Flux) applyApproved(ctx context.Context, obj *unstructured.Unstructured, status map[string]any) {
	approve, _, _ := unstructured.NestedString(obj.Object, "spec", "approvePlan")
	pending, _, _ := unstructured.NestedString(obj.Object, "status", "plan", "pending")
	planOnly, _, _ := unstructured.NestedBool(obj.Object, "spec", "planOnly")
	if pending == "" || planOnly || approve == "" || approve == tofu.ApproveAuto || approve == tofu.ApproveDisable ||
		!strings.HasPrefix(pending, approve) {
		return
	}
	now := time.Now()
	revision, _, _ := unstructured.NestedString(obj.Object, "status", "lastPlannedRevision")
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	cs := readConditions(raw)
	cs.set("Apply", "True", "TerraformAppliedSucceed", "Applied successfully", now)
	cs.set("Ready", "True", "TerraformOutputsWritten", "Outputs written: "+revision, now)
	cs.remove("Reconciling")
	cs.remove("StateLocked")
	status["plan"] = map[string]any{"lastApplied": pending, "pending": ""}
	status["lastAppliedRevision"] = revision
	status["lastAttemptedRevision"] = revision
	status["lastSuccessfulReconcileAt"] = timestamp(now)
	status["lastPlannedGeneration"] = obj.GetGeneration() // the re-plan
	status["observedGeneration"] = obj.GetGeneration()
	status["conditions"] = cs.raw()
	x.rec.event(ctx, obj, "Normal", "TerraformAppliedSucceed", "Applied plan "+pending)
}

func managerFor(gvr schema.GroupVersionResource) string {
	switch gvr.Group {
	case "kustomize.toolkit.fluxcd.io":
		return "kustomize-controller"
	case "helm.toolkit.fluxcd.io":
		return "helm-controller"
	}
	return "tofu-controller"
}
