package actions

import (
	"context"
	"errors"
	"testing"

	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// A permission the cluster did not answer for is an unsure availability,
// which the workbench does not keep; a "no" is a sure one.
func TestAvailabilityIsUnsureWhenThePermissionCheckFails(t *testing.T) {
	u := &model.Unit{Key: model.Key{Context: "prod", Engine: model.EngineArgoCD, Namespace: "argocd", Name: "web"},
		Automation: model.SelfHeal, Argo: &model.ArgoFacts{AutomatedSet: true, AutoSync: true, SelfHeal: true}}
	for _, tc := range []struct {
		name       string
		answer     func() (*authzv1.SelfSubjectAccessReview, error)
		wantUnsure bool
	}{
		{"the check fails", func() (*authzv1.SelfSubjectAccessReview, error) {
			return nil, errors.New("connection reset by peer")
		}, true},
		{"the cluster says no", func() (*authzv1.SelfSubjectAccessReview, error) {
			return &authzv1.SelfSubjectAccessReview{Status: authzv1.SubjectAccessReviewStatus{Allowed: false}}, nil
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc := fake.NewClientset()
			kc.PrependReactor("create", "selfsubjectaccessreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
				r, err := tc.answer()
				return true, r, err
			})
			c := kube.NewClusterFromClients("prod", &rest.Config{}, nil, kc, "")
			e := &Executor{Cluster: func(string) (*kube.Cluster, bool) { return c, true }}
			for _, av := range e.Available(context.Background(), u) {
				if av.Unsure != tc.wantUnsure || av.Enabled {
					t.Errorf("%s: unsure %v, enabled %v (%s); want unsure %v and not enabled", av.Kind, av.Unsure, av.Enabled, av.WhyNot, tc.wantUnsure)
				}
			}
		})
	}
	e := &Executor{Cluster: func(string) (*kube.Cluster, bool) { return nil, false }}
	if av := e.Available(context.Background(), u); len(av) == 0 || !av[0].Unsure {
		t.Errorf("a context not connected gives a sure answer: %+v", av)
	}
}
