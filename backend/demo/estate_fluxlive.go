package demo

import (
	"fmt"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/fluxdiff"
)

// fluxWorkloads adds what team-web's Kustomizations applied from the
// embedded web repository at its previous commit, as kustomize-controller
// labels it, with their ReplicaSets and Pods, and records them in each
// Kustomization's inventory (its tree). web-backend was scaled by hand to 5
// since: it waits for web-frontend, so nothing has reverted that, and its
// diff shows it; its fifth Pod finds no node with the memory it asks.
func (e *estate) fluxWorkloads() {
	for _, w := range []struct {
		ks, image       string
		replicas, ready int64
	}{
		{ks: ksFailing, image: "ghcr.io/acme/web-frontend:2.14.0", replicas: 3, ready: 3},
		{ks: ksDependency, image: "ghcr.io/acme/web-backend:1.9.2", replicas: 5, ready: 4},
	} {
		labels := map[string]any{"app.kubernetes.io/name": w.ks, fluxdiff.LabelName: w.ks, fluxdiff.LabelNamespace: webNS}
		match := map[string]any{"app.kubernetes.io/name": w.ks}
		dep := e.object("apps/v1", "Deployment", webNS, w.ks, nil, map[string]any{
			"spec": map[string]any{
				"replicas": w.replicas,
				"selector": map[string]any{"matchLabels": match},
				"template": map[string]any{
					"metadata": map[string]any{"labels": match},
					"spec": map[string]any{"containers": []any{map[string]any{
						"name": w.ks, "image": w.image, "ports": []any{map[string]any{"containerPort": int64(8080)}},
					}}},
				},
			},
			"status": map[string]any{"observedGeneration": int64(1), "replicas": w.replicas, "updatedReplicas": w.replicas,
				"readyReplicas": w.ready, "availableReplicas": w.ready},
		})
		dep["metadata"].(map[string]any)["labels"] = labels
		e.add(deploymentsGVR, dep)
		svc := e.object("v1", "Service", webNS, w.ks, nil, map[string]any{"spec": map[string]any{
			"type": "ClusterIP", "selector": match,
			"ports": []any{map[string]any{"port": int64(80), "targetPort": int64(8080)}},
		}})
		svc["metadata"].(map[string]any)["labels"] = map[string]any{fluxdiff.LabelName: w.ks, fluxdiff.LabelNamespace: webNS}
		e.add(servicesGVR, svc)
		e.fluxPods(w.ks, w.replicas, w.ready)
		e.inventory(webNS, w.ks, "team-web_"+w.ks+"_apps_Deployment", "team-web_"+w.ks+"__Service")
	}
	// What the cluster's own Kustomizations applied: Namespaces, sources
	// and the Flux objects of each layer.
	ks, hr := "_kustomize.toolkit.fluxcd.io_Kustomization", "_helm.toolkit.fluxcd.io_HelmRelease"
	e.inventory(fluxNS, "flux-system", "_flux-system__Namespace", "flux-system_flux-system_source.toolkit.fluxcd.io_GitRepository",
		"flux-system_infra-controllers"+ks, "flux-system_infra-configs"+ks, "flux-system_"+ksReconciling+ks, "flux-system_"+ksSlow+ks,
		"flux-system_"+ksStalled+ks, "flux-system_"+ksSuspended+ks)
	e.inventory(fluxNS, "infra-controllers", "_monitoring__Namespace", "flux-system_"+hrHistory+hr,
		"monitoring_"+hrPaused+hr, "monitoring_"+hrExhausted+hr, "monitoring_"+hrRetrying+hr)
	e.inventory(fluxNS, ksReconciling, "_team-web__Namespace", "team-web_web_source.toolkit.fluxcd.io_GitRepository",
		"team-web_"+ksFailing+ks, "team-web_"+ksDependency+ks, "team-web_"+ksSourceFailed+ks)
}

// fluxPods are a Deployment's ReplicaSet and its Pods, the ones past ready
// Pending for want of memory.
func (e *estate) fluxPods(name string, replicas, ready int64) {
	rs := name + "-5c7d9f8b4"
	e.add(replicaSetsGVR, e.object("apps/v1", "ReplicaSet", webNS, rs, e.ownerRef("apps/v1", "Deployment", webNS, name), map[string]any{
		"spec":   map[string]any{"replicas": replicas},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": replicas, "readyReplicas": ready, "availableReplicas": ready}}))
	owner := e.ownerRef("apps/v1", "ReplicaSet", webNS, rs)
	for i := range replicas {
		pod := fmt.Sprintf("%s-%c%c%03d", rs, 'k'+rune(i), 'q'+rune(i), 100+i*37)
		if i < ready {
			e.add(podsGVR, e.object("v1", "Pod", webNS, pod, owner, readyPodParts(name)))
			continue
		}
		e.add(podsGVR, e.object("v1", "Pod", webNS, pod, owner, map[string]any{
			"spec": map[string]any{"restartPolicy": "Always", "containers": []any{map[string]any{"name": name}}},
			"status": map[string]any{"phase": "Pending", "conditions": []any{map[string]any{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
				"message": "0/6 nodes are available: 6 Insufficient memory. preemption: 0/6 nodes are available: 6 No preemption victims found for incoming pod."}}},
		}))
	}
}

// inventory records ids (<namespace>_<name>_<group>_<kind>) as the last
// apply of Kustomization ns/name, as kustomize-controller writes it.
func (e *estate) inventory(ns, name string, ids ...string) {
	var entries []any
	for _, id := range ids {
		entries = append(entries, map[string]any{"id": id, "v": "v1"})
	}
	for _, ks := range e.objects[flux.Kustomizations[0]] {
		if ks.GetNamespace() == ns && ks.GetName() == name {
			ks.Object["status"].(map[string]any)["inventory"] = map[string]any{"entries": entries}
		}
	}
}
