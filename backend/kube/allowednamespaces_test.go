package kube

import (
	"testing"

	authzv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A namespace's rules allow listing a resource only by a rule of its group
// and resource (or a wildcard) that names no objects.
func TestRulesAllowListingOnlyEveryObjectOfTheResource(t *testing.T) {
	apps := schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	rule := func(groups, resources, verbs []string, names ...string) authzv1.ResourceRule {
		return authzv1.ResourceRule{APIGroups: groups, Resources: resources, Verbs: verbs, ResourceNames: names}
	}
	for _, tc := range []struct {
		name  string
		rules []authzv1.ResourceRule
		want  bool
	}{
		{"the resource listed", []authzv1.ResourceRule{rule([]string{"argoproj.io"}, []string{"applications"}, []string{"get", "list"})}, true},
		{"wildcards", []authzv1.ResourceRule{rule([]string{"*"}, []string{"*"}, []string{"*"})}, true},
		{"get only", []authzv1.ResourceRule{rule([]string{"argoproj.io"}, []string{"applications"}, []string{"get", "watch"})}, false},
		{"another group's resource of that name", []authzv1.ResourceRule{rule([]string{"example.com"}, []string{"applications"}, []string{"list"})}, false},
		{"a subresource", []authzv1.ResourceRule{rule([]string{"argoproj.io"}, []string{"applications/status"}, []string{"list"})}, false},
		{"some objects by name", []authzv1.ResourceRule{rule([]string{"argoproj.io"}, []string{"applications"}, []string{"list"}, "web")}, false},
		{"no rules", nil, false},
	} {
		if got := rulesAllow(tc.rules, "list", apps); got != tc.want {
			t.Errorf("%s: rulesAllow = %v, want %v", tc.name, got, tc.want)
		}
	}
}
