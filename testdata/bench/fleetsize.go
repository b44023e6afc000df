package main

import (
	"fmt"

	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

// fleetSize is how many objects of each kind the fleet holds.
type fleetSize struct {
	apps, stacks                 int
	kustomizations, helmReleases int
	terraforms                   int
	// copies is how many clusters hold this fleet between them, each its
	// equal share with its own ApplicationSets; 0 is one.
	copies int
}

// units is how many units driftdeck shows for the fleet (an Update is part
// of its Stack, not a unit; an ApplicationSet is the parent row of its
// Applications).
func (s fleetSize) units() int {
	return s.apps + s.appSets() + s.stacks + s.kustomizations + s.helmReleases + s.terraforms
}

// appSets is how many ApplicationSets own the Applications: each cluster's
// share has its own.
func (s fleetSize) appSets() int {
	n := max(s.copies, 1)
	return len(fleetgen.AppSets(s.apps/n)) * n
}

func (s fleetSize) largest() int {
	return max(s.apps, s.stacks, s.kustomizations, s.helmReleases, s.terraforms)
}

// objects names what the fleet holds, for the table.
func (s fleetSize) objects() string {
	out := fmt.Sprintf("%d Argo CD Applications (in %d ApplicationSets) + %d Pulumi Stacks (each with an Update)", s.apps, s.appSets(), s.stacks)
	if s.kustomizations+s.helmReleases+s.terraforms > 0 {
		out += fmt.Sprintf(" + %d Flux Kustomizations + %d Flux HelmReleases + %d tofu-controller Terraforms",
			s.kustomizations, s.helmReleases, s.terraforms)
	}
	return out
}
