package fleetgen

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// AppNamespace is where most Applications live, as in a default install.
const AppNamespace = "argocd"

// TeamNamespaces are the extra namespaces Applications (apps in any
// namespace) and Stacks live in.
func TeamNamespaces() []string {
	out := make([]string, 0, len(teams))
	for _, t := range teams {
		out = append(out, "team-"+t)
	}
	return out
}

// AppState is the state an Application is generated in.
type AppState string

// The Application states of the mix, with their share of every 100.
const (
	AppSynced      AppState = "synced"      // 80: Synced, Healthy, last sync succeeded
	AppDrifted     AppState = "drifted"     // 5: OutOfSync under auto-sync
	AppManual      AppState = "manual"      // 3: OutOfSync with auto-sync off: waits for a person
	AppDegraded    AppState = "degraded"    // 2: Synced but Degraded
	AppRunning     AppState = "running"     // 3: a sync running (one in three for 40 minutes: stuck)
	AppFailed      AppState = "failed"      // 4: last sync failed
	AppComparison  AppState = "comparison"  // 1: ComparisonError, sync Unknown
	AppBlocked     AppState = "blocked"     // 1: sync held by a sync window
	AppProgressing AppState = "progressing" // 1: synced, rollout in progress
)

// StateOfApp is the state Application i is generated in.
func StateOfApp(i int) AppState {
	switch m := i % 100; {
	case m < 80:
		return AppSynced
	case m < 85:
		return AppDrifted
	case m < 88:
		return AppManual
	case m < 90:
		return AppDegraded
	case m < 93:
		return AppRunning
	case m < 97:
		return AppFailed
	case m < 98:
		return AppComparison
	case m < 99:
		return AppBlocked
	}
	return AppProgressing
}

// AppName is the name of Application i.
func AppName(i int) string {
	_, name, _, _, _ := appParts(i)
	return name
}

// appParts is Application i's generator (positioned after the name's
// parts), name, team, service and environment.
func appParts(i int) (r *rand.Rand, name, team, svc, env string) {
	r = rng(fmt.Sprint("app", i))
	team, svc, env = pick(r, teams), pick(r, services), pick(r, envs)
	return r, fmt.Sprintf("%s-%s-%s-%05d", team, svc, env, i), team, svc, env
}

// AppNamespaceOf is the namespace of Application i: most in argocd, one in
// ten in a team namespace.
func AppNamespaceOf(i int) string {
	if i%10 == 7 {
		return "team-" + teams[i%len(teams)]
	}
	return AppNamespace
}

// resourceKinds are what a typical service deploys: group, version, kind
// and the suffix of the object's name.
var resourceKinds = []struct{ group, version, kind, suffix string }{
	{"", "v1", "ConfigMap", "-config"}, {"", "v1", "Secret", "-secrets"}, {"", "v1", "Service", ""},
	{"", "v1", "ServiceAccount", ""}, {"apps", "v1", "Deployment", ""}, {"apps", "v1", "StatefulSet", "-store"},
	{"batch", "v1", "CronJob", "-cleanup"}, {"autoscaling", "v2", "HorizontalPodAutoscaler", ""},
	{"policy", "v1", "PodDisruptionBudget", ""}, {"networking.k8s.io", "v1", "Ingress", ""},
	{"networking.k8s.io", "v1", "NetworkPolicy", ""}, {"rbac.authorization.k8s.io", "v1", "Role", ""},
	{"rbac.authorization.k8s.io", "v1", "RoleBinding", ""}, {"monitoring.coreos.com", "v1", "ServiceMonitor", ""},
	{"monitoring.coreos.com", "v1", "PrometheusRule", "-alerts"}, {"external-secrets.io", "v1beta1", "ExternalSecret", "-secrets"},
	{"keda.sh", "v1alpha1", "ScaledObject", ""},
}

// AppResources and AppHistory shape every Application: 30 resources and 10
// history entries make about 14 KB of JSON, a typical service's. The bench
// of the largest estates sets fewer (-app-resources, -app-history): 50,000
// Applications of 14 KB are a 612 MB LIST, which a two-core API server does
// not serve within its one-minute request timeout.
var AppResources, AppHistory = 30, 10

// Application returns Application i as the Argo CD controller leaves it,
// about 14 KB of JSON once the API server adds its metadata (with the
// default AppResources and AppHistory).
func Application(i int, now time.Time) map[string]any {
	r, name, team, svc, env := appParts(i)
	ns, state := AppNamespaceOf(i), StateOfApp(i)
	destNS := svc + "-" + env
	dest := map[string]any{"name": pick(r, clusters), "namespace": destNS}
	helm := r.IntN(4) == 0
	src := source(r, team, svc, env, helm)
	rev := commit(name, "rev", 10)
	older := commit(name, "rev", 9)
	auto := state != AppManual
	syncOpts := []any{"CreateNamespace=true", "ServerSideApply=true", "PruneLast=true", "RespectIgnoreDifferences=true"}

	md := map[string]any{
		"name":       name,
		"namespace":  ns,
		"finalizers": []any{"resources-finalizer.argocd.argoproj.io"},
		"labels": map[string]any{
			"app.kubernetes.io/part-of": team, "app.kubernetes.io/component": svc, "env": env, "team": team,
		},
		"annotations": map[string]any{
			"notifications.argoproj.io/subscribe.on-sync-failed.slack":     "alerts-" + team,
			"notifications.argoproj.io/subscribe.on-health-degraded.slack": "alerts-" + team,
			"argocd.argoproj.io/manifest-generate-paths":                   ".",
			"link.argocd.argoproj.io/runbook":                              "https://runbooks.acme.example/" + team + "/" + svc,
		},
	}
	md["ownerReferences"] = []any{appSetOwner(i)}
	policy := map[string]any{
		"syncOptions": syncOpts,
		"retry": map[string]any{"limit": int64(5),
			"backoff": map[string]any{"duration": "5s", "factor": int64(2), "maxDuration": "3m"}},
	}
	if auto {
		policy["automated"] = map[string]any{"prune": true, "selfHeal": i%3 != 0}
	}
	spec := map[string]any{
		"project":              team,
		"source":               src,
		"destination":          dest,
		"syncPolicy":           policy,
		"revisionHistoryLimit": int64(10),
		"ignoreDifferences": []any{map[string]any{
			"group": "apps", "kind": "Deployment", "jsonPointers": []any{"/spec/replicas"},
		}},
	}

	res := resources(svc, destNS)
	syncStatus, health := "Synced", "Healthy"
	switch state {
	case AppDrifted, AppManual:
		syncStatus = "OutOfSync"
		for _, k := range []int{3, 11, 17} {
			res[k%len(res)].(map[string]any)["status"] = "OutOfSync"
		}
	case AppDegraded:
		health = "Degraded"
	case AppRunning, AppBlocked:
		syncStatus, health = "OutOfSync", "Progressing"
	case AppFailed:
		syncStatus, health = "OutOfSync", pick(r, []string{"Degraded", "Healthy"})
	case AppComparison:
		syncStatus = "Unknown"
	case AppProgressing:
		health = "Progressing"
	}

	finished := now.Add(-time.Duration(5+r.IntN(600)) * time.Minute)
	status := map[string]any{
		"sync": map[string]any{
			"status":     syncStatus,
			"revision":   rev,
			"comparedTo": map[string]any{"source": src, "destination": dest},
		},
		"health":               map[string]any{"status": health, "lastTransitionTime": stamp(finished)},
		"resources":            res,
		"history":              history(name, src, finished),
		"reconciledAt":         stamp(now.Add(-time.Duration(r.IntN(180)) * time.Second)),
		"operationState":       operationState(r, src, res, rev, syncOpts, finished),
		"sourceType":           map[bool]string{true: "Helm", false: "Kustomize"}[helm],
		"resourceHealthSource": "appTree",
		"controllerNamespace":  AppNamespace,
		"summary": map[string]any{
			"images": []any{
				fmt.Sprintf("registry.acme.example/%s/%s:%s", team, svc, rev[:12]),
				fmt.Sprintf("registry.acme.example/%s/%s-migrations:%s", team, svc, rev[:12]),
				"registry.acme.example/platform/envoy:v1.34.2",
			},
			"externalURLs": []any{fmt.Sprintf("https://%s.%s.acme.example", svc, env)},
		},
	}
	obj := map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Application",
		"metadata":   md,
		"spec":       spec,
		"status":     status,
	}
	op := status["operationState"].(map[string]any)
	request := func() {
		obj["operation"] = map[string]any{
			"initiatedBy": map[string]any{"automated": true},
			"sync":        map[string]any{"revision": rev, "prune": true, "syncOptions": syncOpts},
			"retry":       map[string]any{"limit": int64(5)},
		}
		op["phase"] = "Running"
		delete(op, "syncResult")
		delete(op, "finishedAt")
		status["sync"].(map[string]any)["revision"] = older
	}
	switch state {
	case AppRunning:
		request()
		started := now.Add(-time.Duration(30+r.IntN(120)) * time.Second)
		if i%3 == 0 {
			started = now.Add(-40 * time.Minute) // past the stuck threshold
		}
		op["startedAt"], op["message"] = stamp(started), "one or more tasks are running"
	case AppBlocked:
		request()
		op["startedAt"], op["message"] = stamp(now.Add(-12*time.Minute)), "Sync operation blocked by sync window"
	case AppFailed:
		op["phase"] = "Failed"
		op["message"] = fmt.Sprintf("one or more objects failed to apply, reason: Deployment.apps %q is invalid: spec.template.spec.containers[0].image: Required value (retried 5 times).", svc)
		op["retryCount"] = int64(5)
		status["conditions"] = []any{map[string]any{
			"type": "SyncError", "lastTransitionTime": stamp(finished),
			"message": fmt.Sprintf("Failed last sync attempt to [%s]: one or more objects failed to apply (retried 5 times).", rev),
		}}
	case AppComparison:
		status["conditions"] = []any{map[string]any{
			"type": "ComparisonError", "lastTransitionTime": stamp(finished),
			"message": fmt.Sprintf("Failed to load target state: failed to generate manifest for source 1 of 1: rpc error: code = Unknown desc = %s: app path does not exist", src["path"]),
		}}
	}
	if i%17 == 0 {
		cs, _ := status["conditions"].([]any)
		status["conditions"] = append(cs, map[string]any{
			"type": "OrphanedResourceWarning", "lastTransitionTime": stamp(finished),
			"message": "Application has 2 orphaned resources",
		})
	}
	return obj
}

func source(r *rand.Rand, team, svc, env string, helm bool) map[string]any {
	if helm {
		return map[string]any{
			"repoURL":        "https://charts.acme.example/" + team,
			"chart":          svc,
			"targetRevision": fmt.Sprintf("%d.%d.%d", 1+r.IntN(3), r.IntN(20), r.IntN(10)),
			"helm": map[string]any{
				"releaseName": svc,
				"valueFiles":  []any{"values.yaml", "values-" + env + ".yaml"},
				"parameters": []any{
					map[string]any{"name": "image.tag", "value": commit(team, svc)[:12]},
					map[string]any{"name": "replicaCount", "value": fmt.Sprint(2 + r.IntN(6))},
				},
			},
		}
	}
	return map[string]any{
		"repoURL":        fmt.Sprintf("https://github.com/acme/%s-deploy.git", team),
		"path":           fmt.Sprintf("apps/%s/overlays/%s", svc, env),
		"targetRevision": "main",
	}
}

// resources are the 30 managed resources, sorted as Argo CD sorts them.
func resources(svc, ns string) []any {
	out := make([]any, 0, AppResources)
	for k := range AppResources {
		rk := resourceKinds[k%len(resourceKinds)]
		if k >= len(resourceKinds) {
			rk.suffix += "-canary"
		}
		res := map[string]any{
			"version": rk.version, "kind": rk.kind, "namespace": ns,
			"name":   svc + rk.suffix,
			"status": "Synced",
		}
		if rk.group != "" {
			res["group"] = rk.group
		}
		if rk.kind == "ServiceAccount" || rk.kind == "ConfigMap" {
			res["syncWave"] = int64(-1)
		}
		out = append(out, res)
	}
	return out
}

func history(app string, src map[string]any, last time.Time) []any {
	out := make([]any, 0, AppHistory)
	// The newest entry is always id and revision 10, the synced one.
	for h := 10 - AppHistory; h < 10; h++ {
		at := last.Add(-time.Duration(9-h) * 26 * time.Hour)
		out = append(out, map[string]any{
			"id":              int64(h + 1),
			"revision":        commit(app, "rev", h+1),
			"deployedAt":      stamp(at),
			"deployStartedAt": stamp(at.Add(-47 * time.Second)),
			"source":          src,
			"initiatedBy":     map[string]any{"automated": true},
		})
	}
	return out
}

// operationState is the last sync's: a full sync (every resource in the
// result) for a quarter of the apps, a self-heal of a few drifted resources
// for the rest.
func operationState(r *rand.Rand, src map[string]any, res []any, rev string, syncOpts []any, finished time.Time) map[string]any {
	synced := res
	if r.IntN(4) != 0 {
		from := r.IntN(len(res) - 4)
		synced = res[from : from+1+r.IntN(4)]
	}
	results := make([]any, 0, len(synced))
	for _, x := range synced {
		m := x.(map[string]any)
		group, _ := m["group"].(string)
		verb := "unchanged"
		if r.IntN(4) == 0 {
			verb = "configured"
		}
		kind := lower(m["kind"].(string))
		if group != "" {
			kind += "." + group
		}
		result := map[string]any{
			"group": group, "version": m["version"], "kind": m["kind"], "namespace": m["namespace"], "name": m["name"],
			"status":    "Synced",
			"message":   fmt.Sprintf("%s/%s %s", kind, m["name"], verb),
			"hookPhase": "Running",
			"syncPhase": "Sync",
		}
		switch m["kind"] {
		case "Deployment", "StatefulSet", "CronJob":
			result["images"] = []any{fmt.Sprintf("registry.acme.example/%s:%s", m["name"], rev[:12])}
		}
		results = append(results, result)
	}
	return map[string]any{
		"operation": map[string]any{
			"initiatedBy": map[string]any{"automated": true},
			"sync":        map[string]any{"revision": rev, "prune": true, "syncOptions": syncOpts},
			"retry":       map[string]any{"limit": int64(5)},
		},
		"phase":      "Succeeded",
		"message":    "successfully synced (all tasks run)",
		"startedAt":  stamp(finished.Add(-47 * time.Second)),
		"finishedAt": stamp(finished),
		"syncResult": map[string]any{"resources": results, "revision": rev, "source": src},
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
