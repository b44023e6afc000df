package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// partialApp is an Application of a namespace; partialStack a Stack.
const (
	partialApp = `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"NAME"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"}},
		"status":{"sync":{"status":"Synced","revision":"1111111111111111111111111111111111111111"},"health":{"status":"Healthy"}}}`
	partialStack = `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"net"},
		"spec":{"stack":"org/net/prod","projectRepo":"https://git.example.com/i.git","branch":"main"}}`
)

// statusNames are the namespace/name of each unit `status -o json` printed.
func statusNames(t *testing.T, stdout string) map[string]bool {
	t.Helper()
	var recs []unitRecord
	if err := json.Unmarshal([]byte(stdout), &recs); err != nil {
		t.Fatalf("status -o json printed no JSON list: %v\n%s", err, stdout)
	}
	out := map[string]bool{}
	for _, r := range recs {
		out[r.Namespace+"/"+r.Name] = true
	}
	return out
}

func create(t *testing.T, dyn dynamic.Interface, text, name, ns string) {
	t.Helper()
	o := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(strings.ReplaceAll(text, "NAME", name)), &o.Object); err != nil {
		t.Fatal(err)
	}
	gvr := argocd.Applications
	if o.GetKind() == "Stack" {
		gvr = pulumiop.Stacks
	}
	if _, err := dyn.Resource(gvr).Namespace(ns).Create(context.Background(), o, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// partialEstate is two namespaces: an Application web and a Stack net in
// ns, an Application api in other.
func partialEstate(t *testing.T) (c *testcluster.Cluster, ns, other string) {
	t.Helper()
	c = testcluster.Shared(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns, other = c.Namespace(t), c.Namespace(t)
	create(t, dyn, partialApp, "web", ns)
	create(t, dyn, partialStack, "net", ns)
	create(t, dyn, partialApp, "api", other)
	return c, ns, other
}

// A tenant who may read Applications in its namespace and nothing else
// sees its units with what it may not read named once, on stderr, and
// exit 0: with -n, with --engine argocd (which reads nothing else), with
// --namespaces, and without -n, where every namespace may not be listed
// and the context's namespace is read instead; doctor too.
func TestClusterATenantWhoMayReadApplicationsInOneNamespaceSeesThem(t *testing.T) {
	c, ns, _ := partialEstate(t) // the other namespace's Application is not the tenant's
	cfg := c.UserConfig(t, "tenant-"+ns, []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "list", "watch"}}}, ns)
	kc := testcluster.KubeconfigIn(t, cfg, "tenant", ns)

	for _, tc := range []struct {
		name  string
		args  []string
		names []string // what stderr must name as not shown
		where string
	}{
		{"-n", []string{"-n", ns}, []string{"Pulumi Stacks", "Flux Kustomizations", "Terraform"}, "in " + ns + ": RBAC"},
		{"--namespaces", []string{"--namespaces", ns}, []string{"Pulumi Stacks"}, "in " + ns + ": RBAC"},
		{"the context's namespace", nil, []string{"Argo CD Applications", "Pulumi Stacks"}, "outside " + ns},
		{"--engine argocd", []string{"-n", ns, "--engine", "argocd"}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, append([]string{"status", "--kubeconfig", kc, "-o", "json"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d, want 0 with the readable units; stderr:\n%s", code, stderr)
			}
			t.Logf("stderr: %s", stderr)
			got := statusNames(t, stdout)
			if !got[ns+"/web"] || len(got) != 1 {
				t.Errorf("printed %v, want %s/web alone", got, ns)
			}
			if strings.Contains(stderr, "error") || strings.Contains(stderr, "forbidden") {
				t.Errorf("partial rights read as an error:\n%s", stderr)
			}
			for _, want := range append(tc.names, tc.where) {
				if !strings.Contains(stderr, "not shown: ") || !strings.Contains(stderr, want) {
					t.Errorf("stderr does not name %q as not shown:\n%s", want, stderr)
				}
			}
			if strings.Count(stderr, "not shown") > 1 {
				t.Errorf("what is not shown is said more than once:\n%s", stderr)
			}
			if tc.names == nil && strings.Contains(stderr, "Pulumi") {
				t.Errorf("--engine argocd read Pulumi Stacks:\n%s", stderr)
			}
		})
	}
	code, stdout, stderr := run(t, "doctor", "--kubeconfig", kc, "-n", ns)
	if code != 0 && code != 1 || !strings.Contains(stderr, "not shown: ") {
		t.Errorf("doctor: exit %d (want 0 or 1: findings, not a refusal), stderr:\n%s\nstdout:\n%s", code, stderr, stdout)
	}
}

// Who may read only Argo CD's objects, cluster-wide, sees every
// Application and is told the other engines' units are not shown.
func TestClusterAnArgoCDReaderSeesEveryApplicationAndWhatItMayNotRead(t *testing.T) {
	c, ns, other := partialEstate(t)
	cfg := c.UserConfig(t, "argo-reader-"+ns, []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"},
		Resources: []string{"applications", "applicationsets", "appprojects"}, Verbs: []string{"get", "list", "watch"}}}, "")
	code, stdout, stderr := run(t, "status", "--kubeconfig", testcluster.Kubeconfig(t, cfg, "argo"), "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s", code, stderr)
	}
	t.Logf("stderr: %s", stderr)
	got := statusNames(t, stdout)
	if !got[ns+"/web"] || !got[other+"/api"] || got[ns+"/net"] {
		t.Errorf("printed %v, want %s/web and %s/api, and no Stack", got, ns, other)
	}
	if !strings.Contains(stderr, "not shown: ") || !strings.Contains(stderr, "Pulumi Stacks") || !strings.Contains(stderr, "cluster-wide: RBAC") ||
		strings.Contains(stderr, "Argo CD Applications") {
		t.Errorf("stderr must name the other engines' units as not shown cluster-wide, and not the Applications:\n%s", stderr)
	}
}

// Who may list namespaces, and Applications in two of them but not in
// every one, is read in those two, found by access reviews, not only in
// the context's namespace; an Application of a third namespace is not
// listed, and the header names where they were read.
func TestClusterApplicationsAreReadInTheNamespacesTheAccessReviewsFind(t *testing.T) {
	c, ns, other := partialEstate(t)
	home := c.Namespace(t) // the context's namespace, where nothing may be read
	third := c.Namespace(t)
	create(t, dynamic.NewForConfigOrDie(c.Config()), partialApp, "db", third)
	user := "two-namespaces-" + ns
	read := []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "list", "watch"}}}
	c.UserConfig(t, user, read, ns)
	c.UserConfig(t, user, read, other)
	cfg := c.UserConfig(t, user, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"list"}}}, "")
	kc := testcluster.KubeconfigIn(t, cfg, "tenant", home)

	code, stdout, stderr := run(t, "status", "--kubeconfig", kc, "--engine", "argocd", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d, want 0 with the readable units; stderr:\n%s", code, stderr)
	}
	t.Logf("stderr: %s", stderr)
	got := statusNames(t, stdout)
	if !got[ns+"/web"] || !got[other+"/api"] || len(got) != 2 {
		t.Errorf("printed %v, want %s/web and %s/api alone", got, ns, other)
	}
	first, second := min(ns, other), max(ns, other)
	if want := "not shown: Argo CD Applications outside " + first + ", " + second + ";"; !strings.Contains(stderr, want) || strings.Contains(stderr, third) {
		t.Errorf("stderr does not say %q, or names %s:\n%s", want, third, stderr)
	}
}
