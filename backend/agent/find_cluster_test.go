package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// Find sees an agent's Lease by its label under any name and namespace;
// who may only read the default Lease learns from it alone, and is told
// that it cannot see the others.
func TestClusterFindSeesAnAgentUnderAnyLeaseName(t *testing.T) {
	w := newWorldAlone(t, "test")
	ctx := context.Background()
	admin := w.kc.Kube
	lease := func(ns, name, holder string, labelled bool) {
		t.Helper()
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), LeaseDurationSeconds: ptr.To[int32](60), RenewTime: &metav1.MicroTime{Time: time.Now()}}}
		if labelled {
			l.Labels = map[string]string{LeaseLabel: "true"}
		}
		if _, err := admin.CoordinationV1().Leases(ns).Create(ctx, l, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if p := Find(ctx, admin, time.Now()); p.Running || p.Unknown != "" {
		t.Fatalf("no Lease at all: %+v, want no agent", p)
	}
	lease(w.ns, "unrelated", "some-controller", false)
	if p := Find(ctx, admin, time.Now()); p.Running {
		t.Fatalf("an unlabelled Lease of another program counts as an agent: %+v", p)
	}
	lease(w.ns, "team-agent", "replica-7", true)
	if p := Find(ctx, admin, time.Now()); !p.Running || p.Holder != "replica-7" {
		t.Errorf("an agent's Lease %s/team-agent: %+v, want it running", w.ns, p)
	}

	// bob may get the default Lease only, as deploy/rbac.yaml's reader once allowed.
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: DefaultLeaseNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: DefaultLeaseNamespace, Name: "lease-get"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, ResourceNames: []string{DefaultLeaseName}, Verbs: []string{"get"}}}}
	if _, err := admin.RbacV1().Roles(DefaultLeaseNamespace).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: DefaultLeaseNamespace, Name: "lease-get"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "lease-get"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "bob"}}}
	if _, err := admin.RbacV1().RoleBindings(DefaultLeaseNamespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(w.c.Config())
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "bob"}
	bob := kubernetes.NewForConfigOrDie(cfg)
	testcluster.Eventually(t, 10*time.Second, "bob's Role taking effect", func() bool {
		p := Find(ctx, bob, time.Now())
		return strings.Contains(p.Unknown, "could not list the agents' Leases")
	})
	lease(DefaultLeaseNamespace, DefaultLeaseName, "replica-0", true)
	if p := Find(ctx, bob, time.Now()); !p.Running || p.Holder != "replica-0" || p.Unknown != "" {
		t.Errorf("bob, who may read the default Lease only, with an agent holding it: %+v", p)
	}
}
