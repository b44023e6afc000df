// Package engines says where each engine's units live in the Kubernetes API.
package engines

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// Resource is the resource an engine's units are objects of, at its newest
// version (a cluster may serve only an older one: see Versions); ok is false
// for engines driftdeck does not know.
func Resource(e model.Engine) (gvr schema.GroupVersionResource, ok bool) {
	switch e {
	case model.EngineArgoCD:
		return argocd.Applications, true
	case model.EnginePulumi:
		return pulumiop.Stacks, true
	case model.EngineApplicationSet:
		return argocd.ApplicationSets, true
	}
	if vs := Versions(e); len(vs) > 0 {
		return vs[0], true
	}
	return schema.GroupVersionResource{}, false
}

// Versions lists the versions of an engine's resource driftdeck reads, newest
// first.
func Versions(e model.Engine) []schema.GroupVersionResource {
	switch e {
	case model.EngineArgoCD:
		return []schema.GroupVersionResource{argocd.Applications}
	case model.EnginePulumi:
		return []schema.GroupVersionResource{pulumiop.Stacks}
	case model.EngineKustomization:
		return flux.Kustomizations
	case model.EngineHelmRelease:
		return flux.HelmReleases
	case model.EngineTerraform:
		return tofu.Terraforms
	}
	return nil
}
