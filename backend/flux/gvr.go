// Package flux turns Flux Kustomizations (kustomize.toolkit.fluxcd.io) and
// HelmReleases (helm.toolkit.fluxcd.io) into units, with the Flux runtime
// semantics tofu-controller's Terraform objects share (DESIGN.md section 3):
// Ready/Reconciling/Stalled conditions, suspend, reconcile requests handled
// via status.lastHandledReconcileAt, dependsOn.
package flux

import "k8s.io/apimachinery/pkg/runtime/schema"

// The resources driftdeck reads, newest served version first: a cluster
// that serves only an older version is watched through that one.
var (
	Kustomizations = []schema.GroupVersionResource{
		{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"},
		{Group: "kustomize.toolkit.fluxcd.io", Version: "v1beta2", Resource: "kustomizations"},
	}
	HelmReleases = []schema.GroupVersionResource{
		{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"},
		{Group: "helm.toolkit.fluxcd.io", Version: "v2beta2", Resource: "helmreleases"},
		{Group: "helm.toolkit.fluxcd.io", Version: "v2beta1", Resource: "helmreleases"},
	}
)

// Annotations the Flux controllers read.
const (
	AnnotationRequestedAt = "reconcile.fluxcd.io/requestedAt"
	AnnotationForceAt     = "reconcile.fluxcd.io/forceAt"
	AnnotationResetAt     = "reconcile.fluxcd.io/resetAt"
)

// Condition reasons the Flux controllers write.
const (
	ReasonDependencyNotReady    = "DependencyNotReady"
	ReasonArtifactFailed        = "ArtifactFailed"
	ReasonProgressingWithRetry  = "ProgressingWithRetry"
	ReasonRetriesExceeded       = "RetriesExceeded"
	ReasonMissingRollbackTarget = "MissingRollbackTarget"
)
