package ui

import (
	"context"
	"sync"

	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// fluxAvailability is what the real backend says a Flux or Terraform unit
// can do, for a user whom RBAC allows every write: the fake answers these
// engines' availability with the backend's own rules rather than a copy.
func fluxAvailability(ctx context.Context, u *model.Unit) []model.Availability {
	return allowingExecutor().Available(ctx, u)
}

// allowingExecutor is built once: a fake clientset is slow to make, and
// the screens' tests wait for answers only briefly.
var allowingExecutor = sync.OnceValue(func() *actions.Executor {
	kc := kubefake.NewClientset()
	kc.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		review := a.(k8stesting.CreateAction).GetObject().(*authzv1.SelfSubjectAccessReview).DeepCopy()
		review.Status.Allowed = true
		return true, review, nil
	})
	c := kube.NewClusterFromClients("fake", &rest.Config{Host: "https://fake.invalid"}, nil, kc, "default")
	return &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return c, true }}
})

// answersLikeTheBackend: the engines whose availability the fake takes
// from the backend's rules.
func answersLikeTheBackend(e model.Engine) bool {
	return e == model.EngineKustomization || e == model.EngineHelmRelease || e == model.EngineTerraform
}
