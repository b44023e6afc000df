package demo

import (
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/demo/inmem"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// The demo's identity and permissions.
const (
	// User is who the demo cluster says you are.
	User = "demo-oncall@example.com"
	// ReadOnlyNamespace is where the demo user may look but not write: its
	// actions show as unavailable, with the RBAC reason.
	ReadOnlyNamespace = "finance"
)

var (
	crdGVR    = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}
)

// resources are what the demo API serves, with the subresources of the real
// CRDs: Applications have no status subresource; Stacks, Updates and the
// Flux and tofu-controller kinds do.
var resources = []inmem.Resource{
	{GVR: argocd.Applications, Kind: "Application", Namespaced: true, ShortNames: []string{"app", "apps"}},
	{GVR: argocd.AppProjects, Kind: "AppProject", Namespaced: true, ShortNames: []string{"appproj", "appprojs"}},
	{GVR: argocd.ApplicationSets, Kind: "ApplicationSet", Namespaced: true, ShortNames: []string{"appset", "appsets"}, Status: true},
	{GVR: pulumiop.Stacks, Kind: "Stack", Namespaced: true, Status: true},
	{GVR: pulumiop.Updates, Kind: "Update", Namespaced: true, Status: true},
	{GVR: pulumiop.Workspaces, Kind: "Workspace", Namespaced: true, Status: true, ShortNames: []string{"ws"}},
	{GVR: flux.Kustomizations[0], Kind: "Kustomization", Namespaced: true, ShortNames: []string{"ks"}, Status: true},
	{GVR: flux.HelmReleases[0], Kind: "HelmRelease", Namespaced: true, ShortNames: []string{"hr"}, Status: true},
	{GVR: tofu.Terraforms[0], Kind: "Terraform", Namespaced: true, ShortNames: []string{"tf"}, Status: true},
	{GVR: gitRepositories, Kind: "GitRepository", Namespaced: true, ShortNames: []string{"gitrepo"}, Status: true},
	{GVR: helmRepositories, Kind: "HelmRepository", Namespaced: true, ShortNames: []string{"helmrepo"}, Status: true},
	{GVR: crdGVR, Kind: "CustomResourceDefinition", ShortNames: []string{"crd", "crds"}, Status: true},
	{GVR: eventsGVR, Kind: "Event", Namespaced: true, ShortNames: []string{"ev"}},
	{GVR: configMaps, Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"}},
}

// answerAccess makes the clientset answer SelfSubjectReview with the demo
// user and SelfSubjectAccessReview with yes, except for writes in the
// read-only namespace.
func answerAccess(cs *k8sfake.Clientset) {
	cs.PrependReactor("create", "selfsubjectreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, &authnv1.SelfSubjectReview{Status: authnv1.SelfSubjectReviewStatus{UserInfo: authnv1.UserInfo{
			Username: User, Groups: []string{"sre-oncall", "system:authenticated"},
		}}}, nil
	})
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		review, ok := a.(k8stesting.CreateAction).GetObject().(*authzv1.SelfSubjectAccessReview)
		if !ok {
			return false, nil, nil
		}
		out := review.DeepCopy()
		out.Status = authzv1.SubjectAccessReviewStatus{Allowed: true, Reason: `RBAC: allowed by ClusterRoleBinding "sre-oncall" of ClusterRole "gitops-operator" to Group "sre-oncall"`}
		if ra := review.Spec.ResourceAttributes; ra != nil && ra.Namespace == ReadOnlyNamespace && writes(ra.Verb) {
			out.Status = authzv1.SubjectAccessReviewStatus{Allowed: false}
		}
		return true, out, nil
	})
}

func writes(verb string) bool {
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// crds returns the CustomResourceDefinitions of the served resources, with
// just enough schema for what driftdeck reads from them: the Argo CD 3.x
// Application schema knows spec.syncPolicy.automated.enabled.
func crds() []*unstructured.Unstructured {
	open := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
	boolean := map[string]any{"type": "boolean"}
	appSchema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"apiVersion": map[string]any{"type": "string"},
			"kind":       map[string]any{"type": "string"},
			"metadata":   map[string]any{"type": "object"},
			"operation":  open,
			"status":     open,
			"spec": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"project":              map[string]any{"type": "string"},
					"source":               open,
					"sources":              map[string]any{"type": "array", "items": open},
					"destination":          open,
					"revisionHistoryLimit": map[string]any{"type": "integer", "format": "int64"},
					"syncPolicy": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"automated": map[string]any{
								"type": "object",
								"properties": map[string]any{
									"allowEmpty": boolean, "enabled": boolean, "prune": boolean, "selfHeal": boolean,
								},
							},
							"syncOptions": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
							"retry":       open,
						},
					},
				},
			},
		},
	}
	statusSub := map[string]any{"status": map[string]any{}}
	return []*unstructured.Unstructured{
		crd("applications", "argoproj.io", "Application", "v1alpha1", []any{"app", "apps"}, appSchema, map[string]any{}),
		crd("appprojects", "argoproj.io", "AppProject", "v1alpha1", []any{"appproj", "appprojs"}, open, map[string]any{}),
		crd("applicationsets", "argoproj.io", "ApplicationSet", "v1alpha1", []any{"appset", "appsets"}, open, statusSub),
		crd("stacks", "pulumi.com", "Stack", "v1", nil, open, statusSub),
		crd("updates", "auto.pulumi.com", "Update", "v1alpha1", nil, open, statusSub),
		crd("workspaces", "auto.pulumi.com", "Workspace", "v1alpha1", []any{"ws"}, open, statusSub),
		crd("kustomizations", "kustomize.toolkit.fluxcd.io", "Kustomization", "v1", []any{"ks"}, open, statusSub),
		crd("helmreleases", "helm.toolkit.fluxcd.io", "HelmRelease", "v2", []any{"hr"}, open, statusSub),
		crd("terraforms", "infra.contrib.fluxcd.io", "Terraform", "v1alpha2", []any{"tf"}, open, statusSub),
		crd("gitrepositories", "source.toolkit.fluxcd.io", "GitRepository", "v1", []any{"gitrepo"}, open, statusSub),
		crd("helmrepositories", "source.toolkit.fluxcd.io", "HelmRepository", "v1", []any{"helmrepo"}, open, statusSub),
	}
}

func crd(plural, group, kind, version string, short []any, schema, subresources map[string]any) *unstructured.Unstructured {
	names := map[string]any{"plural": plural, "singular": lower(kind), "kind": kind, "listKind": kind + "List"}
	if short != nil {
		names["shortNames"] = short
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group, "names": names, "scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": version, "served": true, "storage": true,
				"schema":       map[string]any{"openAPIV3Schema": schema},
				"subresources": subresources,
			}},
		},
		"status": map[string]any{
			"acceptedNames":  names,
			"storedVersions": []any{version},
			"conditions": []any{
				map[string]any{"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted"},
			},
		},
	}}
}
