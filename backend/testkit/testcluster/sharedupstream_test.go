package testcluster

import "testing"

// Tests of one CRD generation land on the plane that holds it; a mix of
// generations, or the project's own CRDs beside upstream ones, gets a plane
// of its own, since no shared one serves them together.
func TestSetsOfOneGenerationShareAPlane(t *testing.T) {
	sets := func(names ...string) []CRDSet {
		var out []CRDSet
		for _, n := range names {
			out = append(out, CRDSet{Name: n})
		}
		return out
	}
	for _, c := range []struct {
		sets []CRDSet
		want string
	}{
		{sets(OwnName), ownPlane},
		{sets("argocd-v3.5.1"), newestPlane},
		{sets("flux", "tofu-controller-v0.16.5"), newestPlane},
		{sets("argocd-v2.14.21", "pulumi-operator-v1.16.0"), olderPlane},
		{sets("argocd-v2.14.21", "pulumi-operator-v2.9.0"), ""},
		{sets("flux", OwnName), ""},
		{nil, ""},
	} {
		if got := planeServing(c.sets); got != c.want {
			t.Errorf("%v: plane %q, want %q", c.sets, got, c.want)
		}
	}
}
