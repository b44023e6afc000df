package fleetgen

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// FluxNamespace is where the Flux sources live, as `flux bootstrap` sets up.
const FluxNamespace = "flux-system"

// FluxState is the state a Kustomization or HelmRelease is generated in.
type FluxState string

// The Flux states of the mix, with their share of every 100.
const (
	FluxReady       FluxState = "ready"       // 85: applied the source's latest revision
	FluxReconciling FluxState = "reconciling" // 5: Reconciling (one in three for 40 minutes: stuck)
	FluxFailed      FluxState = "failed"      // 4: Ready False, the controller retries
	FluxDependency  FluxState = "dependency"  // 3: waits for a dependency that is not ready
	FluxStalled     FluxState = "stalled"     // 2: Stalled (HelmRelease: retries exhausted)
	FluxSuspended   FluxState = "suspended"   // 1: suspended by a person
)

// StateOfFlux is the state Kustomization or HelmRelease i is generated in.
func StateOfFlux(i int) FluxState {
	switch m := i % 100; {
	case m < 85:
		return FluxReady
	case m < 90:
		return FluxReconciling
	case m < 94:
		return FluxFailed
	case m < 97:
		return FluxDependency
	case m < 99:
		return FluxStalled
	}
	return FluxSuspended
}

// FluxNamespaceOf is the namespace of Kustomization or HelmRelease i.
func FluxNamespaceOf(i int) string { return "team-" + teams[i%len(teams)] }

func fluxParts(kind string, i int) (r *rand.Rand, name, team, svc, env string) {
	r = rng(fmt.Sprint(kind, i))
	team, svc, env = teams[i%len(teams)], pick(r, services), pick(r, envs)
	return r, fmt.Sprintf("%s-%s-%s-%04d", team, svc, env, i), team, svc, env
}

// condition is a metav1.Condition as the Flux controllers write it.
func condition(typ, status, reason, message string, gen int64, at time.Time) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message,
		"observedGeneration": gen, "lastTransitionTime": stamp(at)}
}

// fluxConditions are Ready (with Reconciling or Stalled beside it) for a
// state; ok is the message of success.
func fluxConditions(state FluxState, gen int64, at time.Time, ok, failure string) []any {
	switch state {
	case FluxReconciling:
		msg := "reconciliation in progress"
		return []any{condition("Reconciling", "True", "Progressing", msg, gen, at),
			condition("Ready", "Unknown", "Progressing", msg, gen, at)}
	case FluxFailed:
		return []any{condition("Ready", "False", "ReconciliationFailed", failure, gen, at)}
	case FluxDependency:
		return []any{condition("Ready", "False", "DependencyNotReady", "dependency 'flux-system/infra-controllers' is not ready", gen, at)}
	case FluxStalled:
		return []any{condition("Stalled", "True", "BuildFailed", failure, gen, at),
			condition("Ready", "False", "BuildFailed", failure, gen, at)}
	}
	return []any{condition("Ready", "True", "ReconciliationSucceeded", ok, gen, at)}
}

// inventory is the kustomize-controller's and helm-controller's list of
// applied objects (<namespace>_<name>_<group>_<kind>, version).
func inventory(ns, name string, n int) []any {
	kinds := [][3]string{{"", "ConfigMap", "v1"}, {"", "Service", "v1"}, {"", "ServiceAccount", "v1"}, {"apps", "Deployment", "v1"},
		{"autoscaling", "HorizontalPodAutoscaler", "v2"}, {"networking.k8s.io", "Ingress", "v1"}, {"policy", "PodDisruptionBudget", "v1"},
		{"monitoring.coreos.com", "ServiceMonitor", "v1"}, {"rbac.authorization.k8s.io", "RoleBinding", "v1"}, {"", "Secret", "v1"}}
	out := make([]any, 0, n)
	for j := range n {
		k := kinds[j%len(kinds)]
		out = append(out, map[string]any{"id": fmt.Sprintf("%s_%s-%d_%s_%s", ns, name, j/len(kinds), k[0], k[1]), "v": k[2]})
	}
	return out
}

// Kustomization returns Kustomization i (kustomize.toolkit.fluxcd.io/v1)
// and its status, shaped like kustomize-controller v1.9 writes it (about
// 7 KB: 40 inventory entries, 5 history snapshots). Status is a
// subresource: create the object, then write the status.
func Kustomization(i int, now time.Time) (obj, status map[string]any) {
	r, name, team, svc, env := fluxParts("kustomization", i)
	ns, state := FluxNamespaceOf(i), StateOfFlux(i)
	head := "main@sha1:" + commit(name, "head")
	applied := head
	if state != FluxReady && state != FluxSuspended {
		applied = "main@sha1:" + commit(name, "previous")
	}
	spec := map[string]any{
		"interval": "10m", "retryInterval": "2m", "timeout": "5m", "prune": true, "wait": true,
		"path":            fmt.Sprintf("./deploy/%s/%s/%s", team, svc, env),
		"sourceRef":       map[string]any{"kind": "GitRepository", "name": "fleet", "namespace": FluxNamespace},
		"targetNamespace": ns,
		"postBuild": map[string]any{"substitute": map[string]any{"cluster": pick(r, clusters), "env": env},
			"substituteFrom": []any{map[string]any{"kind": "ConfigMap", "name": "cluster-vars"}}},
	}
	if i%4 == 0 || state == FluxDependency {
		spec["dependsOn"] = []any{map[string]any{"name": "infra-controllers", "namespace": FluxNamespace}}
	}
	if state == FluxSuspended {
		spec["suspend"] = true
	}
	gen := int64(1 + r.IntN(30))
	at := now.Add(-time.Duration(1+r.IntN(600)) * time.Second)
	if state == FluxReconciling && i%3 == 0 {
		at = now.Add(-40 * time.Minute)
	}
	obj = map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1",
		"kind":       "Kustomization",
		"metadata": map[string]any{
			"name": name, "namespace": ns,
			"finalizers": []any{"finalizers.fluxcd.io"},
			"labels":     map[string]any{"team": team, "env": env, "kustomize.toolkit.fluxcd.io/name": "apps"},
		},
		"spec": spec,
	}
	history := make([]any, 0, 5)
	for h := range 5 {
		rev := head
		if h > 0 {
			rev = "main@sha1:" + commit(name, "history", h)
		}
		when := at.Add(-time.Duration(h) * 6 * time.Hour)
		history = append(history, map[string]any{
			"digest":          "sha256:" + commit(name, "digest", h) + commit(name, "digest2", h)[:24],
			"firstReconciled": stamp(when.Add(-time.Hour)), "lastReconciled": stamp(when),
			"lastReconciledDuration": fmt.Sprintf("%d.%03ds", 1+r.IntN(20), r.IntN(1000)),
			"lastReconciledStatus":   "ReconciliationSucceeded", "totalReconciliations": int64(1 + r.IntN(40)),
			"metadata": map[string]any{"revision": rev},
		})
	}
	status = map[string]any{
		"observedGeneration":        gen,
		"conditions":                fluxConditions(state, gen, at, "Applied revision: "+applied, "kustomize build failed: accumulating resources from 'overlays/"+env+"': no such file or directory"),
		"lastAppliedRevision":       applied,
		"lastAttemptedRevision":     head,
		"lastAppliedOriginRevision": applied,
		"lastHandledReconcileAt":    stamp(at.Add(-time.Hour)),
		"inventory":                 map[string]any{"entries": inventory(ns, svc, 40)},
		"history":                   history,
	}
	return obj, status
}

// HelmRelease returns HelmRelease i (helm.toolkit.fluxcd.io/v2) and its
// status, shaped like helm-controller v1.6 writes it (about 6 KB: 5 history
// snapshots, 20 inventory entries, failure counters). Status is a
// subresource.
func HelmRelease(i int, now time.Time) (obj, status map[string]any) {
	r, name, team, svc, env := fluxParts("helmrelease", i)
	ns, state := FluxNamespaceOf(i), StateOfFlux(i)
	chart := pick(r, []string{"podinfo", "redis", "ingress-nginx", "cert-manager", "kube-prometheus-stack", "external-dns"})
	major, minor := 1+r.IntN(6), r.IntN(20)
	version := fmt.Sprintf("%d.%d.%d", major, minor, r.IntN(10))
	gen := int64(1 + r.IntN(30))
	at := now.Add(-time.Duration(1+r.IntN(600)) * time.Second)
	if state == FluxReconciling && i%3 == 0 {
		at = now.Add(-40 * time.Minute)
	}
	spec := map[string]any{
		"interval": "15m", "releaseName": name, "targetNamespace": ns, "storageNamespace": ns,
		"chart": map[string]any{"spec": map[string]any{"chart": chart, "version": fmt.Sprintf(">=%d.0.0 <%d.0.0", major, major+1),
			"sourceRef": map[string]any{"kind": "HelmRepository", "name": chart, "namespace": FluxNamespace}, "interval": "1h"}},
		"install": map[string]any{"crds": "CreateReplace", "remediation": map[string]any{"retries": int64(3)}},
		"upgrade": map[string]any{"crds": "CreateReplace", "cleanupOnFail": true, "remediation": map[string]any{"retries": int64(3), "remediateLastFailure": true}},
		"values": map[string]any{"replicaCount": int64(1 + r.IntN(5)), "image": map[string]any{"tag": version},
			"resources": map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "128Mi"}},
			"podLabels": map[string]any{"team": team, "env": env}},
	}
	if i%4 == 0 || state == FluxDependency {
		spec["dependsOn"] = []any{map[string]any{"name": "cert-manager", "namespace": FluxNamespace}}
	}
	if state == FluxSuspended {
		spec["suspend"] = true
	}
	obj = map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2",
		"kind":       "HelmRelease",
		"metadata": map[string]any{
			"name": name, "namespace": ns,
			"finalizers": []any{"finalizers.fluxcd.io"},
			"labels":     map[string]any{"team": team, "env": env, "app.kubernetes.io/component": svc},
		},
		"spec": spec,
	}
	release := int64(2 + r.IntN(40))
	history := make([]any, 0, 5)
	for h := range 5 {
		st := "superseded"
		if h == 0 {
			st = "deployed"
			if state == FluxFailed || state == FluxStalled {
				st = "failed"
			}
		}
		when := at.Add(-time.Duration(h) * 24 * time.Hour)
		history = append(history, map[string]any{
			"apiVersion": "v2", "name": name, "namespace": ns, "version": release - int64(h), "status": st,
			"chartName": chart, "chartVersion": fmt.Sprintf("%d.%d.%d", major, max(minor-h, 0), r.IntN(10)), "appVersion": version,
			"configDigest":  "sha256:" + commit(name, "config", h) + commit(name, "config2", h)[:24],
			"digest":        "sha256:" + commit(name, "release", h) + commit(name, "release2", h)[:24],
			"firstDeployed": stamp(now.Add(-90 * 24 * time.Hour)), "lastDeployed": stamp(when), "action": "upgrade",
		})
	}
	status = map[string]any{
		"observedGeneration": gen, "lastAttemptedGeneration": gen,
		"conditions":                 helmConditions(state, gen, at, name, release, chart, version),
		"helmChart":                  FluxNamespace + "/" + ns + "-" + name,
		"storageNamespace":           ns,
		"lastAttemptedRevision":      version,
		"lastAttemptedConfigDigest":  history[0].(map[string]any)["configDigest"],
		"lastAttemptedReleaseAction": "upgrade",
		"lastHandledReconcileAt":     stamp(at.Add(-time.Hour)),
		"history":                    history,
		"inventory":                  map[string]any{"entries": inventory(ns, svc, 20)},
	}
	switch state {
	case FluxFailed:
		status["failures"], status["upgradeFailures"] = int64(1+r.IntN(2)), int64(1+r.IntN(2))
	case FluxStalled:
		status["failures"], status["upgradeFailures"] = int64(4), int64(4)
	}
	return obj, status
}

// helmConditions are Ready and Released (Stalled when retries are
// exhausted) as helm-controller writes them.
func helmConditions(state FluxState, gen int64, at time.Time, name string, release int64, chart, version string) []any {
	released := fmt.Sprintf("Helm upgrade succeeded for release %s.v%d with chart %s@%s", name, release, chart, version)
	failed := fmt.Sprintf("Helm upgrade failed for release %s with chart %s@%s: context deadline exceeded", name, chart, version)
	switch state {
	case FluxFailed:
		return []any{condition("Ready", "False", "UpgradeFailed", failed, gen, at),
			condition("Released", "False", "UpgradeFailed", failed, gen, at)}
	case FluxStalled:
		exhausted := "Failed to upgrade after 4 attempt(s)"
		return []any{condition("Stalled", "True", "RetriesExceeded", exhausted, gen, at),
			condition("Ready", "False", "UpgradeFailed", failed, gen, at),
			condition("Released", "False", "UpgradeFailed", failed, gen, at)}
	case FluxReady, FluxSuspended:
		return []any{condition("Ready", "True", "UpgradeSucceeded", released, gen, at),
			condition("Released", "True", "UpgradeSucceeded", released, gen, at)}
	}
	return fluxConditions(state, gen, at, "", "")
}
