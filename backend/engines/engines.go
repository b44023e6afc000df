// Package engines is the registry of the engines driftdeck reads: for each,
// once, where its units live in the Kubernetes API and how an object of
// them is decoded and turned into a unit. What every layer may know of an
// engine (its names, what it offers to read) is model.EngineInfo; what can
// be written to its units is the action table (backend/actions).
package engines

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// Descriptor is one engine, registered once.
type Descriptor struct {
	Engine model.Engine
	// Kind is the objects' kind.
	Kind string
	// Versions are the versions of the units' resource driftdeck reads,
	// newest first; each context watches the newest it serves.
	Versions []schema.GroupVersionResource
	// Decode reads only the fields Convert needs from an object's JSON;
	// nil decodes the whole object.
	Decode func([]byte) (map[string]any, error)
	// Convert makes the unit of an object of a context.
	Convert func(context string, obj map[string]any) *model.Unit
	// Optional: a cluster without the resource lacks nothing (the
	// ApplicationSets are the parents of rows, not units that reconcile).
	Optional bool
}

// Missing is a context's word for a cluster that serves none of the
// engine's versions.
func (d Descriptor) Missing() string {
	gvr := d.Versions[0]
	return model.InfoOf(d.Engine).Controller + " is not installed (no " + gvr.Resource + "." + gvr.Group + ")"
}

// registry is in model.EngineInfos order.
var registry = []Descriptor{
	{Engine: model.EngineArgoCD, Kind: "Application", Versions: []schema.GroupVersionResource{argocd.Applications}, Decode: argocd.DecodeSlim, Convert: argocd.Convert},
	{Engine: model.EnginePulumi, Kind: "Stack", Versions: []schema.GroupVersionResource{pulumiop.Stacks}, Convert: pulumiop.Convert},
	{Engine: model.EngineKustomization, Kind: "Kustomization", Versions: flux.Kustomizations, Decode: flux.DecodeKustomization, Convert: flux.ConvertKustomization},
	{Engine: model.EngineHelmRelease, Kind: "HelmRelease", Versions: flux.HelmReleases, Decode: flux.DecodeHelmRelease, Convert: flux.ConvertHelmRelease},
	{Engine: model.EngineTerraform, Kind: "Terraform", Versions: tofu.Terraforms, Decode: tofu.DecodeSlim, Convert: tofu.Convert},
	{Engine: model.EngineApplicationSet, Kind: "ApplicationSet", Versions: []schema.GroupVersionResource{argocd.ApplicationSets}, Decode: argocd.DecodeAppSet, Convert: argocd.ConvertAppSet, Optional: true},
}

// All lists every engine's descriptor.
func All() []Descriptor { return slices.Clone(registry) }

// Of finds an engine's descriptor.
func Of(e model.Engine) (Descriptor, bool) {
	for _, d := range registry {
		if d.Engine == e {
			return d, true
		}
	}
	return Descriptor{}, false
}

// Resource is the resource an engine's units are objects of, at its newest
// version (a cluster may serve only an older one: see Versions); ok is false
// for engines driftdeck does not know.
func Resource(e model.Engine) (gvr schema.GroupVersionResource, ok bool) {
	if vs := Versions(e); len(vs) > 0 {
		return vs[0], true
	}
	return schema.GroupVersionResource{}, false
}

// Versions lists the versions of an engine's resource driftdeck reads, newest
// first.
func Versions(e model.Engine) []schema.GroupVersionResource {
	d, _ := Of(e)
	return slices.Clone(d.Versions)
}
