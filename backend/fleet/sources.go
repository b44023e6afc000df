package fleet

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// sourceResources lists every version of every source kind, for discovery.
func sourceResources() (out []schema.GroupVersionResource) {
	for _, k := range flux.SourceKinds {
		out = append(out, k.Versions...)
	}
	return out
}

// sourceSpecs watches every source kind into the fleet's source index, so
// a Flux unit shows how the source it reads is doing, and one held up by
// it is stuck with the source's own reason. Sources are context, not
// units: a kind the user may not list is left out (its units say what
// their own conditions say), never a refusal of the whole context.
func (f *Fleet) sourceSpecs(c *kube.Cluster, h *health) []watchSpec {
	var specs []watchSpec
	for _, k := range flux.SourceKinds {
		kind := k.Kind
		affected := func(ns, name string) func(*model.Unit) bool {
			return func(u *model.Unit) bool {
				f := u.FluxRuntime()
				return u.Key.Context == c.Context && f != nil && f.Source.Kind == kind &&
					(name == "" || f.Source.Name == name && f.Source.Namespace == ns)
			}
		}
		specs = append(specs, watchSpec{what: "Flux sources", engines: fluxSourced, versions: k.Versions, optional: true, run: func(ctx context.Context, gvr schema.GroupVersionResource, namespace string, absent func(error) bool, done func()) {
			kube.Watch(ctx, c, gvr, namespace, kube.Feed[flux.Source]{
				Decode:  flux.DecodeSource,
				Convert: func(obj map[string]any) flux.Source { return flux.ConvertSource(kind, obj) },
				Put: func(s flux.Source) {
					f.Sources.Put(c.Context, s)
					f.Store.Reclassify(affected(s.Ref.Namespace, s.Ref.Name))
				},
				Delete: func(ns, name string) {
					f.Sources.Remove(c.Context, kind, ns, name)
					f.Store.Reclassify(affected(ns, name))
				},
				Replace: func(ss []flux.Source) {
					f.Sources.Replace(c.Context, kind, namespace, ss)
					f.Store.Reclassify(affected("", ""))
					done()
				},
				Absent: absent,
			}, h)
		}})
	}
	return specs
}

// fluxSourced are the engines whose units read a Flux source.
var fluxSourced = []model.Engine{model.EngineKustomization, model.EngineHelmRelease, model.EngineTerraform}
