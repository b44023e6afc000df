package cli

import (
	"context"
	"errors"
	"slices"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
)

// rootsOf are the root modules read: the config's roots, each workspace
// a unit, then those of --root; nil when none is, or --engine leaves
// them out.
func rootsOf(g *globals, cfg *config.Config) ([]rootmod.Root, error) {
	if g.engines != nil && !slices.Contains(g.engines, model.EngineRoot) {
		return nil, nil
	}
	list, err := rootmod.FromConfig(cfg.Roots, g.roots)
	if err != nil {
		return nil, usageError(err)
	}
	return list, nil
}

// tofuOf is the tofu that runs root modules, as the config names it.
func tofuOf(cfg *config.Config) (*rootmod.Tofu, error) {
	bin, err := rootmod.Find(cfg.Tofu)
	if err != nil {
		return nil, usageError(err)
	}
	return rootmod.New(bin, "")
}

// addRoots reads the selected root modules into the fleet.
func addRoots(ctx context.Context, g *globals, f *fleet.Fleet) error {
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return usageError(err)
	}
	list, err := rootsOf(g, cfg)
	if err != nil || len(list) == 0 {
		return err
	}
	tofu, err := tofuOf(cfg)
	if err != nil {
		return err
	}
	f.AddRoots(ctx, tofu, list)
	return nil
}

// onlyRoots tells whether the missing kubeconfig can be passed over:
// root modules are read without a cluster.
func onlyRoots(g *globals, err error) bool {
	if !errors.Is(err, errNoKubeconfig) {
		return false
	}
	cfg, cerr := config.Load(config.DefaultPath())
	if cerr != nil {
		return false
	}
	list, _ := rootsOf(g, cfg)
	return len(list) > 0
}
