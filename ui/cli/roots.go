package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// rootsOf are the root modules read: the config's roots, each workspace
// a unit, then those of --root; nil when none is, when --engine leaves
// them out, or when -n or --namespaces select namespaces (a root module
// is in none).
func rootsOf(g *globals, cfg *config.Config) ([]rootmod.Root, error) {
	if !g.readsRoots() {
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

// addRoots reads the selected root modules into the fleet; on the demo,
// its own too when tofu is installed (made the first time: the workbench,
// live, does not wait for that, and also runs the apply that holds one's
// lock).
func addRoots(ctx context.Context, g *globals, f *fleet.Fleet, live bool) error {
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return usageError(err)
	}
	list, err := rootsOf(g, cfg)
	if err != nil {
		return err
	}
	tofu, err := tofuOf(cfg)
	switch {
	case err != nil && len(list) > 0:
		return err
	case err != nil:
		return nil
	}
	withDemo := g.demo && g.readsRoots()
	switch {
	case withDemo && live:
		// Under the workbench a failure shows as the modules' own: each
		// read says what is wrong with it.
		demo.InBackground(func() { _ = addDemoRoots(ctx, g, f, tofu, list, true) })
	case withDemo:
		// The demo goes on without them: each read says what is wrong.
		if err := addDemoRoots(ctx, g, f, tofu, list, false); err != nil {
			fmt.Fprintln(g.errOut, "demo:", safetext.Visible(err.Error()))
		}
	case len(list) > 0:
		f.AddRoots(ctx, tofu, list, nil)
	}
	return nil
}

// addDemoRoots reads the demo's root modules beside list, made with tofu
// the first time; live, it also starts the apply that holds one's lock.
func addDemoRoots(ctx context.Context, g *globals, f *fleet.Fleet, tofu *rootmod.Tofu, list []rootmod.Root, live bool) error {
	dir, err := stateDir()
	if err != nil {
		return err
	}
	demoRoots, err := demo.Roots(ctx, dir, tofu)
	f.AddRoots(ctx, tofu, append(list, demoRoots...), demo.InBackground)
	if err != nil || !live {
		return err
	}
	held := func() {
		f.RereadRoot(model.Key{Engine: model.EngineRoot, Namespace: rootmod.DefaultWorkspace, Name: "peering"})
	}
	return demo.HoldLock(ctx, dir, tofu, held)
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

// readsRoots tells whether the selection takes root modules in: every
// engine or root among them, and no namespace chosen.
func (g *globals) readsRoots() bool {
	return (g.engines == nil || slices.Contains(g.engines, model.EngineRoot)) && g.namespace() == "" && len(g.namespaceList) == 0
}
