package kube

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"
	authzv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxReviewedNamespaces bounds the namespaces whose rules are asked for:
// on a cluster of thousands, naming them (--namespaces) is the way.
const maxReviewedNamespaces = 500

// NamespacesAllowing lists the namespaces in which the user may verb the
// resource, found by access reviews, for a user who may not do it in every
// namespace: each namespace the user may list is asked once for its rules
// (a SelfSubjectRulesReview, kept for every resource), a few at a time.
// ok is false when they cannot be found: the user may not list namespaces,
// or there are more than maxReviewedNamespaces.
func (a *Access) NamespacesAllowing(ctx context.Context, verb string, gvr schema.GroupVersionResource) (namespaces []string, ok bool, err error) {
	list, err := a.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if apierrors.IsForbidden(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("listing the namespaces to find where %s may be read: %w", gvr.Resource, err)
	}
	if len(list.Items) > maxReviewedNamespaces {
		return nil, false, nil
	}
	allowed := make([]bool, len(list.Items))
	var g errgroup.Group
	g.SetLimit(8)
	for i, ns := range list.Items {
		g.Go(func() error {
			rules, err := a.rulesIn(ctx, ns.Name)
			allowed[i] = err == nil && rulesAllow(rules, verb, gvr)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, false, err
	}
	for i, ns := range list.Items {
		if allowed[i] {
			namespaces = append(namespaces, ns.Name)
		}
	}
	return namespaces, true, nil
}

// rulesIn asks once what the user may do in namespace: the watches
// refused at once ask for the same namespaces together.
func (a *Access) rulesIn(ctx context.Context, namespace string) ([]authzv1.ResourceRule, error) {
	a.mu.Lock()
	r, asked := a.rules[namespace]
	if !asked {
		r = &rulesAnswer{done: make(chan struct{})}
		a.rules[namespace] = r
	}
	a.mu.Unlock()
	if !asked {
		review := &authzv1.SelfSubjectRulesReview{Spec: authzv1.SelfSubjectRulesReviewSpec{Namespace: namespace}}
		res, err := a.kube.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			r.err = fmt.Errorf("asking what may be done in namespace %s (SelfSubjectRulesReview): %w", namespace, err)
			a.mu.Lock()
			delete(a.rules, namespace) // a failure is not kept: the next refusal asks again
			a.mu.Unlock()
		} else {
			r.rules = res.Status.ResourceRules
		}
		close(r.done)
	}
	select {
	case <-r.done:
		return r.rules, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// rulesAnswer is one namespace's rules review, once it is done.
type rulesAnswer struct {
	done  chan struct{}
	rules []authzv1.ResourceRule
	err   error
}

// rulesAllow tells whether a rule allows verb on every object of the
// resource (a rule limited to some names does not allow a list).
func rulesAllow(rules []authzv1.ResourceRule, verb string, gvr schema.GroupVersionResource) bool {
	matches := func(values []string, want string) bool {
		return slices.Contains(values, want) || slices.Contains(values, "*")
	}
	return slices.ContainsFunc(rules, func(r authzv1.ResourceRule) bool {
		return len(r.ResourceNames) == 0 && matches(r.Verbs, verb) && matches(r.APIGroups, gvr.Group) && matches(r.Resources, gvr.Resource)
	})
}
