package restree

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/objread"
)

// FluxKindList are the Flux kinds a Kustomization's tree reads besides the
// workloads: the Kustomizations, HelmReleases and sources a layer applies,
// whose health is their Ready condition.
var FluxKindList = []LiveKind{
	{schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}, "Kustomization"},
	{schema.GroupVersionResource{Group: "helm.toolkit.fluxcd.io", Version: "v2", Resource: "helmreleases"}, "HelmRelease"},
	{schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"}, "GitRepository"},
	{schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "helmrepositories"}, "HelmRepository"},
}

// fluxHealth reads a Flux object's health from its Ready condition, as
// flux tree and Argo CD's checks of the Flux kinds do: suspended; True
// healthy, unless the controller has not yet seen the latest spec; False
// degraded; Unknown under way; each with the condition's message. A
// failure is shown even before the controller records the generation
// (a missing source leaves status.observedGeneration at -1).
func fluxHealth(r *objread.Reader) (Health, string) {
	if suspended, _ := r.Bool("spec", "suspend"); suspended {
		return Suspended, "Reconciliation suspended"
	}
	ready := condition(r, "Ready")
	if ready == nil {
		return Progressing, "Waiting for the controller to report its Ready condition"
	}
	switch ready.Str("status") {
	case "True":
		if !generationObserved(r) {
			return Progressing, fmt.Sprintf("Waiting for the controller to observe generation %d", r.Int("metadata", "generation"))
		}
		return Healthy, ready.Str("message")
	case "False":
		return Degraded, ready.Str("message")
	}
	return Progressing, ready.Str("message")
}
