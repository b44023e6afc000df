package compat

import (
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// TestOwnCRDsMatchUpstreamDefinitions compares each of the project's CRDs
// with every upstream set that defines the same name: group, names (short
// names and categories at least upstream's), scope;
// for each version the project models, that upstream serves it, stores it the
// same way and has the same status subresource (Argo CD's Application has
// none); and that every top-level field of spec and status upstream has is
// declared with a compatible type.
func TestOwnCRDsMatchUpstreamDefinitions(t *testing.T) {
	own, err := testcluster.OwnCRDs()
	if err != nil {
		t.Fatal(err)
	}
	ours, err := own.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	upstream := testcluster.UpstreamCRDSets(t)
	if len(upstream) == 0 {
		dir, _ := testcluster.SharedCRDsDir()
		t.Skipf("no upstream CRD sets in %s to compare with", dir)
	}
	for _, mine := range ours {
		t.Run(mine.Name, func(t *testing.T) {
			matched := 0
			for _, set := range upstream {
				crds, err := set.CRDs()
				if err != nil {
					t.Fatal(err)
				}
				i := slices.IndexFunc(crds, func(c *apiextensionsv1.CustomResourceDefinition) bool { return c.Name == mine.Name })
				if i < 0 {
					continue
				}
				matched++
				compareDefinitions(t, set.Name, crds[i], mine)
			}
			if matched == 0 {
				t.Errorf("no upstream set defines %s", mine.Name)
			}
		})
	}
}

func compareDefinitions(t *testing.T, set string, theirs, mine *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	tn, mn := theirs.Spec.Names, mine.Spec.Names
	// Short names and categories may have been added by a newer release.
	if theirs.Spec.Group != mine.Spec.Group || theirs.Spec.Scope != mine.Spec.Scope ||
		tn.Kind != mn.Kind || tn.ListKind != mn.ListKind || tn.Plural != mn.Plural || tn.Singular != mn.Singular ||
		!subset(tn.ShortNames, mn.ShortNames) || !subset(tn.Categories, mn.Categories) {
		t.Errorf("%s: group %s, scope %s, names %+v; ours: group %s, scope %s, names %+v",
			set, theirs.Spec.Group, theirs.Spec.Scope, tn, mine.Spec.Group, mine.Spec.Scope, mn)
	}
	for _, mv := range mine.Spec.Versions {
		i := slices.IndexFunc(theirs.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == mv.Name })
		if i < 0 || !theirs.Spec.Versions[i].Served {
			t.Errorf("%s does not serve version %s", set, mv.Name)
			continue
		}
		tv := theirs.Spec.Versions[i]
		if tv.Storage != mv.Storage {
			t.Errorf("%s: version %s storage %v, ours %v", set, mv.Name, tv.Storage, mv.Storage)
		}
		if hasStatus(tv) != hasStatus(mv) {
			t.Errorf("%s: version %s status subresource %v, ours %v", set, mv.Name, hasStatus(tv), hasStatus(mv))
		}
		for _, part := range []string{"spec", "status"} {
			theirFields, myFields := fields(tv, part), fields(mv, part)
			for name, typ := range theirFields {
				mine, ok := myFields[name]
				switch {
				case !ok:
					t.Errorf("%s has %s.%s (%s), ours does not declare it", set, part, name, orAny(typ))
				case mine != typ && mine != "":
					t.Errorf("%s: %s.%s is %s, ours %s", set, part, name, orAny(typ), mine)
				}
			}
		}
	}
}

func subset(small, large []string) bool {
	for _, s := range small {
		if !slices.Contains(large, s) {
			return false
		}
	}
	return true
}

func hasStatus(v apiextensionsv1.CustomResourceDefinitionVersion) bool {
	return v.Subresources != nil && v.Subresources.Status != nil
}

// fields maps the properties of spec or status to their types ("" when
// untyped: anything goes).
func fields(v apiextensionsv1.CustomResourceDefinitionVersion, part string) map[string]string {
	out := map[string]string{}
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return out
	}
	for name, p := range v.Schema.OpenAPIV3Schema.Properties[part].Properties {
		out[name] = p.Type
	}
	return out
}

func orAny(typ string) string {
	if typ == "" {
		return "any"
	}
	return typ
}
