// Package testchangereq sets up change requests on a test control plane as
// shipped: deploy/ and deploy/change-requests/ applied, people bound to the
// shipped ClusterRoles, and a connection as the agent's ServiceAccount.
package testchangereq

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// AgentUser is the identity deploy/change-requests/policy.yaml lets write a
// request's status.
const AgentUser = "system:serviceaccount:driftdeck-system:driftdeck-agent"

var requests = schema.GroupVersionResource{Group: "driftdeck.io", Version: "v1alpha1", Resource: "changerequests"}

// Install applies deploy/ (the agent's namespace and RBAC) and
// deploy/change-requests/ as shipped, and returns once the admission
// policy is enforced (the API server compiles a new one in the background).
func Install(t testing.TB, c *testcluster.Cluster) {
	t.Helper()
	root, err := testcluster.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	deploy := func(f string) string { return filepath.Join(root, "deploy", f) }
	c.Apply(t, deploy("namespace.yaml"), deploy("rbac.yaml"),
		deploy("change-requests/crd.yaml"), deploy("change-requests/policy.yaml"), deploy("change-requests/rbac.yaml"),
		deploy("change-requests/change-request-only.yaml"))
	waitEnforced(t, c)
}

// Bind gives user a shipped ClusterRole in the namespace, and returns once
// it is in force.
func Bind(t testing.TB, c *testcluster.Cluster, namespace, user, role string) {
	t.Helper()
	ctx := context.Background()
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user + "-" + role, Namespace: namespace},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
	if _, err := c.Kube(t).RbacV1().RoleBindings(namespace).Create(ctx, rb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	verb := map[string]string{"driftdeck-change-requester": "create"}[role]
	if verb == "" {
		verb = "patch"
	}
	WaitAllowed(t, c, namespace, user, verb, "")
}

// WaitAllowed returns once the authorizer lets user do verb on
// changerequests (subresource sub) in the namespace.
func WaitAllowed(t testing.TB, c *testcluster.Cluster, namespace, user, verb, sub string) {
	t.Helper()
	kc := c.Kube(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	review := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &authzv1.ResourceAttributes{
		Namespace: namespace, Verb: verb, Group: requests.Group, Resource: requests.Resource, Subresource: sub}}}
	err := wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		got, err := kc.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		return err == nil && got.Status.Allowed, err
	})
	if err != nil {
		t.Fatalf("%s may not %s changerequests in %s: %v", user, verb, namespace, err)
	}
}

// AgentConfig is a connection as the agent's ServiceAccount of deploy/, by
// a token valid an hour.
func AgentConfig(t testing.TB, c *testcluster.Cluster) *rest.Config {
	t.Helper()
	expiry := int64(3600)
	tr, err := c.Kube(t).CoreV1().ServiceAccounts("driftdeck-system").CreateToken(context.Background(), "driftdeck-agent",
		&authnv1.TokenRequest{Spec: authnv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	WaitAllowed(t, c, "default", AgentUser, "patch", "status")
	base := c.Config()
	cfg := &rest.Config{Host: base.Host, BearerToken: tr.Status.Token}
	cfg.CAData = base.CAData
	return cfg
}

// Raw is a request object as any client could write it, in requester's
// name.
func Raw(namespace, requester, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "driftdeck.io/v1alpha1", "kind": "ChangeRequest",
		"metadata": map[string]any{"generateName": name + "-", "namespace": namespace},
		"spec": map[string]any{"request": map[string]any{
			"unit":   map[string]any{"engine": "argocd", "name": "web", "uid": "0000"},
			"action": "pause", "reason": "probe", "requester": requester, "approvalsRequired": int64(1),
			"expiresAt": "2099-01-01T00:00:00Z",
			"plan":      map[string]any{"resourceVersion": "1", "at": "2026-01-01T00:00:00Z", "patch": "[]", "digest": "sha256:00"},
		}},
	}}
}

// waitEnforced creates, as the administrator, a request in another name
// until the policy refuses it.
func waitEnforced(t testing.TB, c *testcluster.Cluster) {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var last error
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		out, err := dyn.Resource(requests).Namespace("default").Create(ctx, Raw("default", "nobody-at-all", "probe"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil && out != nil {
			last = nil
			return false, nil
		}
		last = err
		if strings.Contains(err.Error(), "resulted in error") {
			return false, err // the policy itself is broken
		}
		return strings.Contains(err.Error(), "spec.request.requester must name"), nil
	})
	if err != nil {
		t.Fatalf("the change request policy is not enforced: %v (last answer: %v)", err, last)
	}
}
