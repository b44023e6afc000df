package kube

import (
	"context"
	"fmt"
	"strings"
	"sync"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
)

// Access answers who we are (SelfSubjectReview) and what we may do
// (SelfSubjectAccessReview) in one cluster. Answers are cached for the life of
// the process: permissions rarely change during an incident, and a stale "yes"
// only means the server refuses the write and driftdeck shows that refusal.
type Access struct {
	kube kubernetes.Interface

	mu       sync.Mutex
	identity string
	idErr    error
	idDone   bool
	verdicts map[accessKey]Verdict
	rules    map[string]*rulesAnswer // by namespace
}

// Verdict is the answer to "may I?".
type Verdict struct {
	Allowed bool
	Reason  string // why not, in words a user can act on
}

type accessKey struct {
	verb, group, resource, namespace, subresource string
}

func newAccess(kc kubernetes.Interface) *Access {
	return &Access{kube: kc, verdicts: map[accessKey]Verdict{}, rules: map[string]*rulesAnswer{}}
}

// Identity returns the user name the cluster sees, asked once.
func (a *Access) Identity(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.idDone {
		return a.identity, a.idErr
	}
	res, err := a.kube.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		// Not cached: a network blip must not leave us nameless for good.
		return "", fmt.Errorf("asking the cluster who we are (SelfSubjectReview): %w", err)
	}
	a.idDone = true
	a.identity = res.Status.UserInfo.Username
	if a.identity == "" {
		a.idErr = fmt.Errorf("the cluster did not name the current user")
	}
	return a.identity, a.idErr
}

// Can asks whether the current user may do verb on the resource in namespace.
func (a *Access) Can(ctx context.Context, verb string, gvr schema.GroupVersionResource, namespace, subresource string) (Verdict, error) {
	k := accessKey{verb, gvr.Group, gvr.Resource, namespace, subresource}
	a.mu.Lock()
	v, ok := a.verdicts[k]
	a.mu.Unlock()
	if ok {
		return v, nil
	}
	review := &authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authzv1.ResourceAttributes{
			Namespace: namespace, Verb: verb, Group: gvr.Group, Resource: gvr.Resource, Subresource: subresource,
		},
	}}
	res, err := a.kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return Verdict{}, fmt.Errorf("asking the cluster for permission (SelfSubjectAccessReview): %w", err)
	}
	v = Verdict{Allowed: res.Status.Allowed}
	if !v.Allowed {
		what := gvr.Resource
		if gvr.Group != "" {
			what += "." + gvr.Group
		}
		if subresource != "" {
			what += "/" + subresource
		}
		where := "cluster-wide"
		if namespace != "" {
			where = "in namespace " + namespace
		}
		v.Reason = fmt.Sprintf("RBAC: you may not %s %s %s", verb, what, where)
		if r := strings.TrimSpace(res.Status.Reason); r != "" {
			v.Reason += " (" + r + ")"
		}
	}
	a.mu.Lock()
	a.verdicts[k] = v
	a.mu.Unlock()
	return v, nil
}
