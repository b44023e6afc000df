package fleetgen

import (
	"fmt"
	"strings"
	"time"
)

// argocdAppSets is how many ApplicationSets own the Applications of the
// argocd namespace; those in team namespaces have one per namespace (six
// of them hold Applications), so 5,000 Applications are in 50 sets.
const argocdAppSets = 44

// setsGrowPast is how many Applications the first sets own between them;
// beyond it each hundred Applications of the argocd namespace have a set of
// their own, so 50,000 Applications are in about 500 sets, as the largest
// estates generate them.
const setsGrowPast = 5000

// AppSetOf names the ApplicationSet that owns Application i, in its
// namespace (an owner reference never crosses namespaces).
func AppSetOf(i int) (namespace, name string) {
	ns := AppNamespaceOf(i)
	switch {
	case ns != AppNamespace:
		return ns, strings.TrimPrefix(ns, "team-") + "-services"
	case i >= setsGrowPast:
		return ns, fmt.Sprintf("fleet-%03d", argocdAppSets+(i-setsGrowPast)/100)
	}
	return ns, fmt.Sprintf("fleet-%02d", i%argocdAppSets)
}

// AppSets lists the ApplicationSets that own the first apps Applications,
// each once, as namespace/name pairs in the order first met.
func AppSets(apps int) [][2]string {
	var out [][2]string
	seen := map[[2]string]bool{}
	for i := range apps {
		ns, name := AppSetOf(i)
		if k := [2]string{ns, name}; !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// appSetOwner is the owner reference the ApplicationSet controller puts on
// the Applications it generates (a controller reference).
func appSetOwner(i int) map[string]any {
	ns, name := AppSetOf(i)
	return map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet", "name": name,
		"uid": UID("appset", ns, name), "controller": true, "blockOwnerDeletion": true,
	}
}

// ApplicationSet returns an ApplicationSet and its status: a git directory
// generator over the team's services, as most fleets generate theirs. About
// one in eight reports a generation error.
func ApplicationSet(namespace, name string, now time.Time) (obj, status map[string]any) {
	team := strings.TrimSuffix(name, "-services")
	obj = map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "ApplicationSet",
		"metadata":   map[string]any{"name": name, "namespace": namespace, "labels": map[string]any{"team": team}},
		"spec": map[string]any{
			"goTemplate": true,
			"generators": []any{map[string]any{"git": map[string]any{
				"repoURL": "https://git.acme.example/" + team + "/deploy.git", "revision": "main",
				"directories": []any{map[string]any{"path": "services/*/*"}},
			}}},
			"template": map[string]any{
				"metadata": map[string]any{"name": "{{.path.basename}}"},
				"spec": map[string]any{
					"project":     team,
					"source":      map[string]any{"repoURL": "https://git.acme.example/" + team + "/deploy.git", "path": "{{.path.path}}", "targetRevision": "main"},
					"destination": map[string]any{"name": "prod-eu-west-1", "namespace": "{{.path.basename}}"},
					"syncPolicy":  map[string]any{"automated": map[string]any{"prune": true, "selfHeal": true}},
				},
			},
			"syncPolicy": map[string]any{"preserveResourcesOnDeletion": true},
		},
	}
	at := stamp(now.Add(-time.Hour))
	cond := map[string]any{"type": "ResourcesUpToDate", "status": "True", "reason": "ApplicationSetUpToDate",
		"message": "All applications have been generated successfully", "lastTransitionTime": at}
	if UID("appset", namespace, name)[0] < '2' {
		cond = map[string]any{"type": "ErrorOccurred", "status": "True", "reason": "ApplicationGenerationFromParamsError",
			"message": "failed to execute go template {{.path.basename}}: template: :1: map has no entry for key", "lastTransitionTime": at}
	}
	return obj, map[string]any{"conditions": []any{cond}}
}
