package tfplan

import (
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// With no readable plan stored, the error says why: storing is off (and
// how to turn it on), or it is on and no plan is kept now.
func TestNoStoredPlanSaysWhy(t *testing.T) {
	c := &kube.Cluster{Context: "prod", Kube: fake.NewClientset()}
	k := model.Key{Context: "prod", Engine: model.EngineTerraform, Namespace: "flux-system", Name: "iam-roles"}
	for _, tc := range []struct {
		facts model.TofuFacts
		want  string
	}{
		{model.TofuFacts{Workspace: "default"}, "spec.storeReadablePlan is none: set it to human or json"},
		{model.TofuFacts{Workspace: "default", StoreReadablePlan: "human"}, "spec.storeReadablePlan is human, and tofu-controller writes one with each plan it keeps: none is stored now, and no plan is pending"},
		{model.TofuFacts{Workspace: "default", StoreReadablePlan: "json", PendingPlan: "plan-main-1a2b3c4d5e"}, "none is stored now)"},
	} {
		_, err := (&Reader{}).readStored(context.Background(), c, k, &tc.facts)
		if !errors.Is(err, ErrNoReadablePlan) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.facts, err, tc.want)
		}
	}
}
