// Package argocd turns Argo CD Applications into units and builds the exact
// writes of Argo CD actions (see DESIGN.md section 3).
package argocd

import "k8s.io/apimachinery/pkg/runtime/schema"

// The resources driftdeck reads.
var (
	Applications    = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	AppProjects     = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "appprojects"}
	ApplicationSets = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applicationsets"}
)

// Annotations Argo CD itself reads.
const (
	AnnotationRefresh          = "argocd.argoproj.io/refresh"
	AnnotationDeletionApproved = "argocd.argoproj.io/deletion-approved"
	AnnotationTrackingID       = "argocd.argoproj.io/tracking-id"
)
