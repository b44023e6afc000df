package testcluster

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	authnv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

var applications = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

func TestClusterOwnCRDsAreEstablishedAndServed(t *testing.T) {
	c := Shared(t)
	own, err := OwnCRDs()
	if err != nil {
		t.Fatal(err)
	}
	want, err := own.CRDs()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 9 {
		t.Errorf("testdata/crds holds %d CRDs, want 9 (Argo CD x3, Pulumi x3, Flux x2, tofu x1)", len(want))
	}
	cs := apiextensions.NewForConfigOrDie(c.Config())
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ctx := context.Background()
	for _, crd := range want {
		got, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("CRD %s: %v", crd.Name, err)
			continue
		}
		if !established(got) {
			t.Errorf("CRD %s is not Established: %v", crd.Name, got.Status.Conditions)
		}
		for _, v := range crd.Spec.Versions {
			gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}
			if _, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{}); err != nil {
				t.Errorf("listing %s: %v", gvr, err)
			}
		}
	}
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

func TestClusterUserWithoutPatchIsForbidden(t *testing.T) {
	c := Shared(t)
	ns := c.Namespace(t)
	ctx := context.Background()
	admin := dynamic.NewForConfigOrDie(c.Config())
	app := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Application",
		"metadata":   map[string]any{"name": "guestbook", "namespace": ns},
		"spec": map[string]any{
			"project":     "default",
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "guestbook"},
			"source":      map[string]any{"repoURL": "https://github.com/argoproj/argocd-example-apps", "path": "guestbook"},
		},
	}}
	if _, err := admin.Resource(applications).Namespace(ns).Create(ctx, app, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	read := rbacv1.PolicyRule{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "list", "watch"}}
	write := read
	write.Verbs = append(write.Verbs, "patch")
	patch := []byte(`{"metadata":{"annotations":{"argocd.argoproj.io/refresh":"normal"}}}`)

	viewer := dynamic.NewForConfigOrDie(c.UserConfig(t, "viewer", []rbacv1.PolicyRule{read}, ns))
	if _, err := viewer.Resource(applications).Namespace(ns).Get(ctx, "guestbook", metav1.GetOptions{}); err != nil {
		t.Fatalf("viewer cannot read: %v", err)
	}
	_, err := viewer.Resource(applications).Namespace(ns).Patch(ctx, "guestbook", types.MergePatchType, patch, metav1.PatchOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("viewer's patch: got %v, want Forbidden", err)
	}

	operator := dynamic.NewForConfigOrDie(c.UserConfig(t, "operator", []rbacv1.PolicyRule{write}, ns))
	if _, err := operator.Resource(applications).Namespace(ns).Patch(ctx, "guestbook", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("operator's patch: %v", err)
	}
	// The grant is per namespace: elsewhere the operator may not even read.
	other := c.Namespace(t)
	_, err = operator.Resource(applications).Namespace(other).List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("operator listing another namespace: got %v, want Forbidden", err)
	}
}

func TestClusterUserIdentityIsTheGivenName(t *testing.T) {
	c := Shared(t)
	kc := kubernetes.NewForConfigOrDie(c.UserConfig(t, "alice", nil, ""))
	r, err := kc.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Status.UserInfo.Username; got != "alice" {
		t.Fatalf("SelfSubjectReview says %q, want alice", got)
	}
}

func equalJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

// widgetCRD writes a one-CRD set whose spec declares only field.
func widgetCRD(t *testing.T, name, field string) CRDSet {
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ` + field + `: {type: string}
`
	if err := os.WriteFile(filepath.Join(dir, "widgets.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return CRDSet{Name: name, Dir: dir}
}

func TestClusterInstallCRDsReplacesASetWithItsSchema(t *testing.T) {
	c := Shared(t)
	ns := c.Namespace(t)
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(c.Config())
	widgets := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}).Namespace(ns)
	widget := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": name, "finalizers": []any{"example.com/keep"}},
			"spec":     map[string]any{"old": "o", "new": "n"},
		}}
	}

	oldSet, newSet := widgetCRD(t, "old", "old"), widgetCRD(t, "new", "new")
	c.InstallCRDs(t, oldSet)
	got, err := widgets.Create(ctx, widget("first"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if spec := got.Object["spec"]; !equalJSON(spec, map[string]any{"old": "o"}) {
		t.Fatalf("under the old schema spec is %v, want only old", spec)
	}

	// A finalizer nobody removes must not hold the swap.
	c.InstallCRDs(t, newSet)
	if _, err := widgets.Get(ctx, "first", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("an object of the replaced CRD: got %v, want NotFound", err)
	}
	got, err = widgets.Create(ctx, widget("second"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if spec := got.Object["spec"]; !equalJSON(spec, map[string]any{"new": "n"}) {
		t.Fatalf("under the new schema spec is %v, want only new", spec)
	}

	c.RemoveCRDs(t, newSet)
	if _, err := widgets.List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("listing widgets after RemoveCRDs: got %v, want NotFound", err)
	}
}

func TestCollectRefusesTwoSetsDefiningOneName(t *testing.T) {
	_, err := collect([]CRDSet{widgetCRD(t, "a", "x"), widgetCRD(t, "b", "y")})
	if err == nil || !strings.Contains(err.Error(), "widgets.example.com") {
		t.Fatalf("collecting two sets that both define widgets.example.com: got %v, want an error naming it", err)
	}
}
