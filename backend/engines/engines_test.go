package engines

import (
	"slices"
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Each engine of a cluster is described once for every layer
// (model.EngineInfos) and once for reading (the registry), in the same
// order, and each names what the help texts and notices say of it.
func TestEveryEngineIsRegisteredOnceWithWhatItsNoticesSay(t *testing.T) {
	infos := slices.DeleteFunc(model.EngineInfos(), func(i model.EngineInfo) bool { return !i.Engine.InCluster() })
	if len(infos) != len(registry) {
		t.Fatalf("%d engines described, %d registered", len(infos), len(registry))
	}
	seen := map[model.Engine]bool{}
	for i, info := range infos {
		d := registry[i]
		if d.Engine != info.Engine {
			t.Errorf("registry[%d] is %s, the descriptions have %s there", i, d.Engine, info.Engine)
		}
		if seen[d.Engine] {
			t.Errorf("%s registered twice", d.Engine)
		}
		seen[d.Engine] = true
		if len(d.Versions) == 0 || d.Convert == nil || d.Kind == "" {
			t.Errorf("%s: no versions, converter or kind: %+v", d.Engine, d)
		}
		if k, err := model.ParseRef(info.Example); err != nil || k.Engine != info.Engine {
			t.Errorf("%s: example %q reads as %v (%v)", info.Engine, info.Example, k, err)
		}
		for _, name := range append([]string{string(info.Engine), info.Scope}, info.Aliases...) {
			if e, err := model.ParseEngine(name); err != nil || e != info.Engine {
				t.Errorf("%q reads as %q (%v), want %s", name, e, err, info.Engine)
			}
		}
	}
	for _, e := range model.ClusterEngines() {
		if d, ok := Of(e); !ok || d.Optional {
			t.Errorf("%s reconciles: it must be registered and not optional", e)
		}
	}
	for e, want := range map[model.Engine]string{
		model.EngineArgoCD:        "Argo CD is not installed (no applications.argoproj.io)",
		model.EnginePulumi:        "the Pulumi operator is not installed (no stacks.pulumi.com)",
		model.EngineKustomization: "Flux's kustomize-controller is not installed (no kustomizations.kustomize.toolkit.fluxcd.io)",
		model.EngineHelmRelease:   "Flux's helm-controller is not installed (no helmreleases.helm.toolkit.fluxcd.io)",
		model.EngineTerraform:     "tofu-controller is not installed (no terraforms.infra.contrib.fluxcd.io)",
	} {
		if d, _ := Of(e); d.Missing() != want {
			t.Errorf("%s missing: %q, want %q", e, d.Missing(), want)
		}
	}
}
