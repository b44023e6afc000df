package store

import (
	"testing"

	"github.com/driftdeck/driftdeck/backend/model"
)

func TestNotShownNamesWhatMayNotBeReadOnceByWhere(t *testing.T) {
	stacks := Unreadable{What: "Pulumi Stacks", Namespace: "team-a", Units: true, For: []model.Engine{model.EnginePulumi}}
	updates := Unreadable{What: "Pulumi Updates", Namespace: "team-a", For: []model.Engine{model.EnginePulumi}}
	projects := Unreadable{What: "Argo CD AppProjects (sync windows)", Namespace: "team-a", For: []model.Engine{model.EngineArgoCD}}
	apps := Unreadable{What: "Argo CD Applications", Units: true, For: []model.Engine{model.EngineArgoCD}, ReadIn: []string{"team-a"}}
	kustomizations := Unreadable{What: "Flux Kustomizations", Namespace: "team-a", Units: true, For: []model.Engine{model.EngineKustomization}}
	for _, tc := range []struct {
		name string
		add  []Unreadable
		want string
	}{
		{"everything readable", nil, ""},
		{"units in engine order, then what classifies them", []Unreadable{projects, kustomizations, stacks},
			"not shown: Pulumi Stacks, Flux Kustomizations, Argo CD AppProjects (sync windows) in team-a: RBAC"},
		{"what classifies only units not shown goes without saying", []Unreadable{updates, stacks}, "not shown: Pulumi Stacks in team-a: RBAC"},
		{"recorded twice, said once", []Unreadable{stacks, stacks}, "not shown: Pulumi Stacks in team-a: RBAC"},
		{"read in a namespace instead of every one", []Unreadable{apps, stacks},
			"not shown: Argo CD Applications outside team-a; Pulumi Stacks in team-a: RBAC"},
		{"read in the namespaces the access reviews found", []Unreadable{{What: "Argo CD Applications", Units: true, For: []model.Engine{model.EngineArgoCD}, ReadIn: []string{"team-a", "team-b"}}},
			"not shown: Argo CD Applications outside team-a, team-b: RBAC"},
		{"many namespaces are counted", []Unreadable{{What: "Argo CD Applications", Units: true, ReadIn: []string{"a", "b", "c", "d", "e", "f"}}},
			"not shown: Argo CD Applications outside a, b, c and 3 more namespaces: RBAC"},
		{"the access reviews failed", []Unreadable{{What: "Argo CD Applications", Units: true, ReadIn: []string{"team-a"}, Unsearched: "asking what may be done in namespace b: timeout"}},
			"not shown: Argo CD Applications outside team-a: RBAC (where else they may be read is not known: asking what may be done in namespace b: timeout)"},
		{"refused in that namespace too", []Unreadable{apps, {What: "Argo CD Applications", Units: true, For: []model.Engine{model.EngineArgoCD}}},
			"not shown: Argo CD Applications cluster-wide: RBAC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st ContextStatus
			for _, u := range tc.add {
				st.AddUnreadable(u)
			}
			if got := st.NotShown(); got != tc.want {
				t.Errorf("NotShown() = %q\nwant        %q", got, tc.want)
			}
		})
	}
}

// A status handed out keeps what it said when more is recorded after.
func TestAddUnreadableLeavesCopiesAsTheyWere(t *testing.T) {
	var st ContextStatus
	st.AddUnreadable(Unreadable{What: "Pulumi Stacks", Units: true})
	st.AddUnreadable(Unreadable{What: "Flux Kustomizations", Units: true})
	copied := st
	before := copied.NotShown()
	st.AddUnreadable(Unreadable{What: "Argo CD Applications", Units: true})
	if copied.NotShown() != before {
		t.Fatalf("a copy changed: %q, was %q", copied.NotShown(), before)
	}
}
