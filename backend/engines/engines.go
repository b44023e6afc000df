// Package engines says where each engine's units live in the Kubernetes API.
package engines

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// Resource is the resource an engine's units are objects of; ok is false for
// engines driftdeck does not act on.
func Resource(e model.Engine) (gvr schema.GroupVersionResource, ok bool) {
	switch e {
	case model.EngineArgoCD:
		return argocd.Applications, true
	case model.EnginePulumi:
		return pulumiop.Stacks, true
	}
	return schema.GroupVersionResource{}, false
}
