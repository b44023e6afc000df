package testcluster

import (
	"slices"
	"testing"
)

// SharedServing returns a package-shared control plane that serves the CRD
// sets: Shared for the project's own set alone, one plane holding the newest
// upstream set of every engine, or one holding the older ones; sets that
// mix those get a control plane of the test's own. An upstream API server
// costs about 13 CPU-seconds to start, so a package's tests of several CRD
// generations share two of them instead of starting one each (ADR 0049).
func SharedServing(t testing.TB, sets []CRDSet) *Cluster {
	t.Helper()
	switch planeServing(sets) {
	case ownPlane:
		return Shared(t)
	case newestPlane:
		return SharedNewestUpstream(t)
	case olderPlane:
		return SharedAs(t, olderPlane, Options{CRDSets: olderUpstreamCRDSets(t)})
	}
	return Start(t, Options{CRDSets: sets})
}

// SharedNewestUpstream returns the package-shared control plane with the
// newest upstream CRDs of every engine.
func SharedNewestUpstream(t testing.TB) *Cluster {
	t.Helper()
	return SharedAs(t, newestPlane, Options{CRDSets: UpstreamCRDSetsNamed(t, NewestUpstream...)})
}

// The shared planes SharedServing picks from; "" is none (a plane of the
// test's own).
const (
	ownPlane    = "own"
	newestPlane = "upstream-newest"
	olderPlane  = "upstream-older"
)

// planeServing names the shared plane whose CRDs include all of sets.
func planeServing(sets []CRDSet) string {
	if len(sets) == 1 && sets[0].Name == OwnName {
		return ownPlane
	}
	newest, older := 0, 0
	for _, s := range sets {
		switch {
		case s.Name == OwnName:
			return ""
		case slices.Contains(NewestUpstream, s.Name):
			newest++
		default:
			older++
		}
	}
	switch {
	case newest > 0 && older == 0:
		return newestPlane
	case older > 0 && newest == 0:
		return olderPlane
	}
	return ""
}

// olderUpstreamCRDSets are the upstream sets not in NewestUpstream: one
// older release of an engine each (two of one engine define the same CRDs,
// which Launch refuses to install together, naming both).
func olderUpstreamCRDSets(t testing.TB) []CRDSet {
	t.Helper()
	var out []CRDSet
	for _, s := range UpstreamCRDSets(t) {
		if !slices.Contains(NewestUpstream, s.Name) {
			out = append(out, s)
		}
	}
	return out
}
