package fleetunits

import (
	"encoding/json"
	"time"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/tofu"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

// Mix is how many objects of each kind a fleet holds.
type Mix struct {
	Apps, Stacks, Kustomizations, HelmReleases, Terraforms int
}

// BenchMix is the one-cluster fleet of `make bench`: with the
// ApplicationSets that own the Applications, 7,250 units.
var BenchMix = Mix{Apps: 5000, Stacks: 1000, Kustomizations: 700, HelmReleases: 300, Terraforms: 200}

// MixSnapshot is the model the views receive for the mix, the
// ApplicationSets included: the fleet the tree view shows.
func MixSnapshot(mix Mix, now time.Time) ([]*model.Unit, error) {
	us, err := Units(mix.Apps, mix.Stacks, now)
	if err != nil {
		return nil, err
	}
	sets, err := AppSetUnits(mix.Apps, now)
	if err != nil {
		return nil, err
	}
	us = append(us, sets...)
	for i := range mix.Kustomizations {
		obj, status := fleetgen.Kustomization(i, now)
		u, err := Through(obj, status, flux.DecodeKustomization, flux.ConvertKustomization)
		if err != nil {
			return nil, err
		}
		us = append(us, u)
	}
	for i := range mix.HelmReleases {
		obj, status := fleetgen.HelmRelease(i, now)
		u, err := Through(obj, status, flux.DecodeHelmRelease, flux.ConvertHelmRelease)
		if err != nil {
			return nil, err
		}
		us = append(us, u)
	}
	for i := range mix.Terraforms {
		obj, status := fleetgen.Terraform(i, now)
		u, err := Through(obj, status, tofu.DecodeSlim, tofu.Convert)
		if err != nil {
			return nil, err
		}
		us = append(us, u)
	}
	return snapshot(us, now), nil
}

// Through is obj with its status as the fleet's watch decodes and
// converts it: encoded to JSON, through the engine's slim decoder, then its
// adapter.
func Through(obj, status map[string]any, decode func([]byte) (map[string]any, error),
	convert func(string, map[string]any) *model.Unit) (*model.Unit, error) {
	obj["status"] = status
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	m, err := decode(raw)
	if err != nil {
		return nil, err
	}
	return convert(Context, m), nil
}
