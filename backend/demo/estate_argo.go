package demo

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"
)

const (
	inCluster   = "https://kubernetes.default.svc"
	prodCluster = "https://prod-eu-1.k8s.acme.internal"

	platformRepo   = "https://github.com/acme/platform-gitops.git"
	storefrontRepo = "https://github.com/acme/storefront-deploy.git"
	paymentsRepo   = "https://github.com/acme/payments-deploy.git"
	dataRepo       = "https://github.com/acme/data-platform.git"
	financeRepo    = "https://github.com/acme/finance-apps.git"
)

// policy is an Application's syncPolicy.
type policy struct {
	auto, selfHeal, prune, disabled bool
	syncOptions                     []string
}

var (
	manual   = policy{syncOptions: []string{"CreateNamespace=true"}}
	autoSync = policy{auto: true, prune: true, syncOptions: []string{"CreateNamespace=true", "ServerSideApply=true"}}
	selfHeal = policy{auto: true, prune: true, selfHeal: true, syncOptions: []string{"CreateNamespace=true", "ServerSideApply=true"}}
)

// syncPolicyOf is the spec.syncPolicy of a policy.
func syncPolicyOf(p policy) map[string]any {
	sp := map[string]any{"syncOptions": strs(p.syncOptions...), "retry": map[string]any{
		"limit": int64(5), "backoff": map[string]any{"duration": "5s", "factor": int64(2), "maxDuration": "3m"}}}
	if p.auto {
		auto := map[string]any{"prune": p.prune, "selfHeal": p.selfHeal}
		if p.disabled {
			auto["enabled"] = false
		}
		sp["automated"] = auto
	}
	return sp
}

// appDef describes one Application of the estate.
type appDef struct {
	namespace, name, project string
	repo, path, ref          string // a git source
	chartRepo, chart         string // a Helm chart source (ref is its version)
	valuesRef                bool   // multi-source: the chart plus values from repo at ref "main"
	server, destName, destNS string
	policy                   policy
	web, stateful            bool
	annotations, labels      map[string]any
	owner                    map[string]any
	resources                []any // overrides the generated resources
}

func (d *appDef) sources() []map[string]any {
	switch {
	case d.valuesRef:
		return []map[string]any{
			{"repoURL": d.chartRepo, "chart": d.chart, "targetRevision": d.ref,
				"helm": map[string]any{"valueFiles": strs("$values/" + d.path + "/values.yaml")}},
			{"repoURL": d.repo, "targetRevision": "main", "ref": "values"},
		}
	case d.chart != "":
		return []map[string]any{{"repoURL": d.chartRepo, "chart": d.chart, "targetRevision": d.ref,
			"helm": map[string]any{"releaseName": d.name}}}
	}
	return []map[string]any{{"repoURL": d.repo, "path": d.path, "targetRevision": d.ref}}
}

// revisions are what each source resolves to now: the branch head for git
// (registered with the estate's Git), the version for a chart.
func (e *estate) revisions(d *appDef) []string {
	var out []string
	for _, s := range d.sources() {
		repo, _ := s["repoURL"].(string)
		ref, _ := s["targetRevision"].(string)
		if _, chart := s["chart"]; chart {
			out = append(out, ref)
			continue
		}
		head, ok := e.git.Head(repo, ref)
		if !ok {
			head = commit(repo, ref, "head")
			e.git.Set(repo, ref, head)
		}
		out = append(out, head)
	}
	return out
}

// app builds a settled Application: synced and healthy at its branch head,
// with a history of past syncs and the last one's result.
func (e *estate) app(d appDef) map[string]any {
	r := rng(d.namespace + "/" + d.name)
	if d.destNS == "" {
		d.destNS = d.name
	}
	if d.server == "" && d.destName == "" {
		d.server = inCluster
	}
	srcs := d.sources()
	revs := e.revisions(&d)
	dest := map[string]any{"namespace": d.destNS}
	if d.server != "" {
		dest["server"] = d.server
	}
	if d.destName != "" {
		dest["name"] = d.destName
	}
	spec := map[string]any{"project": d.project, "destination": dest}
	if len(srcs) > 1 {
		spec["sources"] = anyMaps(srcs)
	} else {
		spec["source"] = srcs[0]
	}
	spec["syncPolicy"] = syncPolicyOf(d.policy)

	resources := d.resources
	if resources == nil {
		resources = generateResources(r, &d)
	}
	lastDeployed := e.now.Add(-time.Duration(20+r.IntN(60*24*3)) * time.Minute)
	initiatedBy := map[string]any{"automated": true}
	if !d.policy.auto {
		initiatedBy = map[string]any{"username": pick(r, "maria.k@example.com", "dev.patel@example.com", "sre-bot@example.com", "j.nakamura@example.com")}
	}
	history := e.history(r, &d, srcs, revs, lastDeployed, initiatedBy)
	opSync := map[string]any{"prune": d.policy.prune, "syncOptions": strs(d.policy.syncOptions...)}
	result := map[string]any{"resources": syncResult(resources)}
	syncStatus := map[string]any{"status": "Synced", "comparedTo": map[string]any{"destination": dest}}
	if len(srcs) > 1 {
		opSync["revisions"], result["revisions"], result["sources"] = strs(revs...), strs(revs...), anyMaps(srcs)
		syncStatus["revisions"] = strs(revs...)
		syncStatus["comparedTo"].(map[string]any)["sources"] = anyMaps(srcs)
	} else {
		opSync["revision"], result["revision"], result["source"] = revs[0], revs[0], srcs[0]
		syncStatus["revision"] = revs[0]
		syncStatus["comparedTo"].(map[string]any)["source"] = srcs[0]
	}
	status := map[string]any{
		"sync":         syncStatus,
		"health":       map[string]any{"status": "Healthy", "lastTransitionTime": ts(lastDeployed.Add(90 * time.Second))},
		"resources":    resources,
		"history":      history,
		"reconciledAt": e.ago(time.Duration(5+r.IntN(170)) * time.Second),
		"operationState": map[string]any{
			"operation":  map[string]any{"sync": opSync, "initiatedBy": initiatedBy, "retry": map[string]any{"limit": int64(5)}},
			"phase":      "Succeeded",
			"message":    "successfully synced (all tasks run)",
			"startedAt":  ts(lastDeployed.Add(-time.Duration(20+r.IntN(90)) * time.Second)),
			"finishedAt": ts(lastDeployed),
			"syncResult": result,
		},
		"summary":              summary(r, &d),
		"sourceType":           sourceType(&d),
		"resourceHealthSource": "appTree",
		"controllerNamespace":  "argocd",
	}
	ann := map[string]any{}
	for k, v := range d.annotations {
		ann[k] = v
	}
	labels := map[string]any{"app.kubernetes.io/part-of": d.project}
	for k, v := range d.labels {
		labels[k] = v
	}
	extra := map[string]any{
		"uid":               e.uid("Application", d.namespace, d.name),
		"creationTimestamp": e.ago(time.Duration(30+r.IntN(300)) * 24 * time.Hour),
		"generation":        int64(200 + r.IntN(4000)),
		"labels":            labels,
		"finalizers":        strs("resources-finalizer.argocd.argoproj.io"),
	}
	if len(ann) > 0 {
		extra["annotations"] = ann
	}
	if d.owner != nil {
		extra["ownerReferences"] = []any{d.owner}
	}
	return map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": metadata(d.namespace, d.name, extra),
		"spec":     spec,
		"status":   status,
	}
}

func (e *estate) history(r *rand.Rand, d *appDef, srcs []map[string]any, revs []string, last time.Time, by map[string]any) []any {
	n := 3 + r.IntN(8)
	firstID := int64(1 + r.IntN(200))
	var out []any
	for i := range n {
		at := last.Add(-time.Duration(n-1-i) * time.Duration(6+r.IntN(60)) * time.Hour)
		entryRevs := revs
		if i < n-1 {
			entryRevs = make([]string, len(revs))
			for j, rev := range revs {
				entryRevs[j] = rev
				if len(rev) == 40 {
					entryRevs[j] = commit(d.name, rev, fmt.Sprint(i))
				}
			}
		}
		entry := map[string]any{
			"id": firstID + int64(i), "deployedAt": ts(at), "deployStartedAt": ts(at.Add(-time.Duration(15+r.IntN(60)) * time.Second)),
			"initiatedBy": by,
		}
		if len(srcs) > 1 {
			entry["revisions"], entry["sources"] = strs(entryRevs...), anyMaps(srcs)
		} else {
			entry["revision"], entry["source"] = entryRevs[0], srcs[0]
		}
		out = append(out, entry)
	}
	return out
}

// resourceKind is one kind of resource an app may manage.
type resourceKind struct{ group, version, kind, suffix string }

var (
	baseKinds = []resourceKind{
		{"", "v1", "ServiceAccount", ""}, {"", "v1", "ConfigMap", "-config"}, {"", "v1", "Service", ""},
	}
	extraKinds = []resourceKind{
		{"autoscaling", "v2", "HorizontalPodAutoscaler", ""}, {"policy", "v1", "PodDisruptionBudget", ""},
		{"networking.k8s.io", "v1", "NetworkPolicy", "-default-deny"}, {"networking.k8s.io", "v1", "NetworkPolicy", "-allow-ingress"},
		{"rbac.authorization.k8s.io", "v1", "Role", ""}, {"rbac.authorization.k8s.io", "v1", "RoleBinding", ""},
		{"monitoring.coreos.com", "v1", "ServiceMonitor", ""}, {"monitoring.coreos.com", "v1", "PrometheusRule", "-alerts"},
		{"external-secrets.io", "v1beta1", "ExternalSecret", "-credentials"}, {"", "v1", "Secret", "-tls"},
		{"", "v1", "ConfigMap", "-env"}, {"", "v1", "ConfigMap", "-dashboards"}, {"batch", "v1", "CronJob", "-cleanup"},
		{"", "v1", "Service", "-headless"}, {"", "v1", "Service", "-metrics"}, {"cert-manager.io", "v1", "Certificate", ""},
		{"keda.sh", "v1alpha1", "ScaledObject", ""}, {"", "v1", "ServiceAccount", "-migrations"}, {"batch", "v1", "Job", "-migrate"},
		{"rbac.authorization.k8s.io", "v1", "ClusterRole", ""}, {"rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", ""},
		{"policy", "v1", "PodDisruptionBudget", "-workers"}, {"apps", "v1", "Deployment", "-worker"}, {"", "v1", "ConfigMap", "-feature-flags"},
		{"monitoring.coreos.com", "v1", "PodMonitor", ""}, {"", "v1", "PersistentVolumeClaim", "-data"},
	}
)

var clusterScoped = map[string]bool{"ClusterRole": true, "ClusterRoleBinding": true, "Namespace": true}

// generateResources makes a realistic status.resources list (5-30 entries),
// sorted by key as Argo CD keeps it.
func generateResources(r *rand.Rand, d *appDef) []any {
	kinds := append([]resourceKind{}, baseKinds...)
	workload := resourceKind{"apps", "v1", "Deployment", ""}
	if d.stateful {
		workload = resourceKind{"apps", "v1", "StatefulSet", ""}
	}
	kinds = append(kinds, workload)
	if d.web {
		kinds = append(kinds, resourceKind{"networking.k8s.io", "v1", "Ingress", ""})
	}
	want := 5 + r.IntN(26)
	for _, i := range r.Perm(len(extraKinds)) {
		if len(kinds) >= want {
			break
		}
		kinds = append(kinds, extraKinds[i])
	}
	var out []any
	for _, k := range kinds {
		res := map[string]any{"group": k.group, "version": k.version, "kind": k.kind, "name": d.name + k.suffix, "status": "Synced"}
		if !clusterScoped[k.kind] {
			res["namespace"] = d.destNS
		}
		if k.kind == "Job" {
			res["hook"] = true
		}
		out = append(out, res)
	}
	sortResources(out)
	return out
}

func sortResources(list []any) {
	key := func(v any) string {
		m := v.(map[string]any)
		return fmt.Sprintf("%v/%v/%v/%v", m["group"], m["kind"], m["namespace"], m["name"])
	}
	sort.Slice(list, func(i, j int) bool { return key(list[i]) < key(list[j]) })
}

// syncResult is what the last sync reported for each resource.
func syncResult(resources []any) []any {
	out := make([]any, 0, len(resources))
	for _, it := range resources {
		m := it.(map[string]any)
		out = append(out, map[string]any{
			"group": m["group"], "version": m["version"], "kind": m["kind"], "namespace": m["namespace"], "name": m["name"],
			"status": "Synced", "message": fmt.Sprintf("%s/%s unchanged", lower(fmt.Sprint(m["kind"])), m["name"]),
			"hookPhase": "Succeeded", "syncPhase": "Sync",
		})
	}
	return out
}

func summary(r *rand.Rand, d *appDef) map[string]any {
	s := map[string]any{"images": strs(fmt.Sprintf("registry.acme.internal/%s/%s:%s", d.project, d.name, version(r)))}
	if d.web {
		s["externalURLs"] = strs("https://" + d.name + ".acme.example")
	}
	return s
}

func sourceType(d *appDef) string {
	if d.chart != "" {
		return "Helm"
	}
	return "Kustomize"
}

func pick(r *rand.Rand, words ...string) string { return words[r.IntN(len(words))] }

func anyMaps(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// project builds an AppProject.
func (e *estate) project(name, description string, sourceNamespaces []string, windows ...map[string]any) map[string]any {
	ws := make([]any, len(windows))
	for i, w := range windows {
		ws[i] = w
	}
	spec := map[string]any{
		"description":              description,
		"sourceRepos":              strs("https://github.com/acme/*", "https://*.github.io/*", "https://charts.bitnami.com/bitnami", "https://kubernetes.github.io/*"),
		"destinations":             []any{map[string]any{"server": "*", "namespace": "*"}},
		"clusterResourceWhitelist": []any{map[string]any{"group": "*", "kind": "*"}},
	}
	if len(sourceNamespaces) > 0 {
		spec["sourceNamespaces"] = strs(sourceNamespaces...)
	}
	if len(ws) > 0 {
		spec["syncWindows"] = ws
	}
	return map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject",
		"metadata": metadata("argocd", name, map[string]any{
			"uid": e.uid("AppProject", "argocd", name), "creationTimestamp": e.ago(400 * 24 * time.Hour), "generation": int64(7),
		}),
		"spec": spec,
	}
}

// trackingID is the annotation a parent app-of-apps puts on what it deploys.
func trackingID(parent, namespace, name string) string {
	return parent + ":argoproj.io/Application:" + namespace + "/" + name
}
