package testcluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// UserConfig returns a connection as user name (a client certificate; groups
// system:authenticated only) allowed exactly rules: in namespace through a
// Role, or cluster-wide through a ClusterRole when namespace is "". The
// grants are removed when the test ends. It returns once the apiserver
// enforces them.
func (c *Cluster) UserConfig(t testing.TB, name string, rules []rbacv1.PolicyRule, namespace string) *rest.Config {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kc := c.Kube(t)
	if err := grant(ctx, kc, name, rules, namespace); err != nil {
		t.Fatalf("granting %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := revoke(context.Background(), kc, name, namespace); err != nil {
			t.Errorf("revoking the grants of %s: %v", name, err)
		}
	})
	user, err := c.env.AddUser(envtest.User{Name: name}, c.cfg)
	if err != nil {
		t.Fatalf("adding user %s: %v", name, err)
	}
	if err := waitAllowed(ctx, kc, name, rules, namespace); err != nil {
		t.Fatalf("the grants of %s are not in force: %v", name, err)
	}
	return user.Config()
}

// ServiceAccountConfig returns a connection by bearer token (a TokenRequest,
// valid an hour) as ServiceAccount name of namespace, allowed exactly rules
// in that namespace, and the user name the apiserver knows it by
// (system:serviceaccount:<namespace>:<name>), which --as impersonates. The
// grants are removed when the test ends; it returns once they are in force.
func (c *Cluster) ServiceAccountConfig(t testing.TB, name string, rules []rbacv1.PolicyRule, namespace string) (*rest.Config, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kc := c.Kube(t)
	user := "system:serviceaccount:" + namespace + ":" + name
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	if _, err := kc.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating ServiceAccount %s: %v", user, err)
	}
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace}
	if err := grantTo(ctx, kc, grantName(user), subject, rules, namespace); err != nil {
		t.Fatalf("granting %s: %v", user, err)
	}
	t.Cleanup(func() {
		if err := revokeGrant(context.Background(), kc, grantName(user), namespace); err != nil {
			t.Errorf("revoking the grants of %s: %v", user, err)
		}
	})
	expiry := int64(3600)
	tr, err := kc.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a token for %s: %v", user, err)
	}
	if err := waitAllowed(ctx, kc, user, rules, namespace); err != nil {
		t.Fatalf("the grants of %s are not in force: %v", user, err)
	}
	cfg := &rest.Config{Host: c.cfg.Host, BearerToken: tr.Status.Token}
	cfg.CAData = c.cfg.CAData
	return cfg, user
}

// grantName is the Role and binding of a user; colons are kept, as RBAC
// names allow them.
func grantName(user string) string { return "testcluster:" + user }

func grant(ctx context.Context, kc kubernetes.Interface, user string, rules []rbacv1.PolicyRule, namespace string) error {
	return grantTo(ctx, kc, grantName(user), rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}, rules, namespace)
}

func grantTo(ctx context.Context, kc kubernetes.Interface, name string, subject rbacv1.Subject, rules []rbacv1.PolicyRule, namespace string) error {
	subjects := []rbacv1.Subject{subject}
	if namespace == "" {
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
			Subjects:   subjects,
		}
		if err := replace(ctx, role, kc.RbacV1().ClusterRoles().Create, kc.RbacV1().ClusterRoles().Delete); err != nil {
			return err
		}
		return replace(ctx, binding, kc.RbacV1().ClusterRoleBindings().Create, kc.RbacV1().ClusterRoleBindings().Delete)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Rules: rules}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects:   subjects,
	}
	if err := replace(ctx, role, kc.RbacV1().Roles(namespace).Create, kc.RbacV1().Roles(namespace).Delete); err != nil {
		return err
	}
	return replace(ctx, binding, kc.RbacV1().RoleBindings(namespace).Create, kc.RbacV1().RoleBindings(namespace).Delete)
}

// replace creates obj, deleting an existing one of its name first (a user
// name used again in a shared cluster gets exactly the new rules).
func replace[T metav1.Object](ctx context.Context, obj T,
	create func(context.Context, T, metav1.CreateOptions) (T, error),
	del func(context.Context, string, metav1.DeleteOptions) error,
) error {
	_, err := create(ctx, obj, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		if err := del(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		_, err = create(ctx, obj, metav1.CreateOptions{})
	}
	return err
}

func revoke(ctx context.Context, kc kubernetes.Interface, user, namespace string) error {
	return revokeGrant(ctx, kc, grantName(user), namespace)
}

func revokeGrant(ctx context.Context, kc kubernetes.Interface, name, namespace string) error {
	var errs []error
	if namespace == "" {
		errs = append(errs,
			kc.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{}),
			kc.RbacV1().ClusterRoles().Delete(ctx, name, metav1.DeleteOptions{}))
	} else {
		errs = append(errs,
			kc.RbacV1().RoleBindings(namespace).Delete(ctx, name, metav1.DeleteOptions{}),
			kc.RbacV1().Roles(namespace).Delete(ctx, name, metav1.DeleteOptions{}))
	}
	for _, err := range errs {
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// waitAllowed polls until the authorizer, which learns about RBAC objects
// through a watch, allows the first verb of every resource rule.
func waitAllowed(ctx context.Context, kc kubernetes.Interface, user string, rules []rbacv1.PolicyRule, namespace string) error {
	for _, r := range rules {
		if len(r.Verbs) == 0 || len(r.Resources) == 0 {
			continue
		}
		group := ""
		if len(r.APIGroups) > 0 {
			group = r.APIGroups[0]
		}
		attrs := &authzv1.ResourceAttributes{Namespace: namespace, Verb: r.Verbs[0], Group: group, Resource: r.Resources[0]}
		if len(r.ResourceNames) > 0 {
			attrs.Name = r.ResourceNames[0]
		}
		review := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: attrs}}
		err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			got, err := kc.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
			if err != nil {
				return false, err
			}
			return got.Status.Allowed, nil
		})
		if err != nil {
			return fmt.Errorf("%s %s.%s: %w", attrs.Verb, attrs.Resource, attrs.Group, err)
		}
	}
	return nil
}
