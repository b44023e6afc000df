package demo

import "github.com/driftdeck/driftdeck/backend/fluxdiff"

// fluxWorkloads adds what team-web's Kustomizations applied from the
// embedded web repository at its previous commit, as kustomize-controller
// labels it. web-backend was scaled by hand to 5 since: it waits for
// web-frontend, so nothing has reverted that, and its diff shows it.
func (e *estate) fluxWorkloads() {
	for _, w := range []struct {
		ks, image string
		replicas  int64
	}{
		{ks: ksFailing, image: "ghcr.io/acme/web-frontend:2.14.0", replicas: 3},
		{ks: ksDependency, image: "ghcr.io/acme/web-backend:1.9.2", replicas: 5},
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
			"status": map[string]any{"observedGeneration": int64(1), "replicas": w.replicas, "readyReplicas": w.replicas, "availableReplicas": w.replicas},
		})
		dep["metadata"].(map[string]any)["labels"] = labels
		e.add(deploymentsGVR, dep)
		svc := e.object("v1", "Service", webNS, w.ks, nil, map[string]any{"spec": map[string]any{
			"type": "ClusterIP", "selector": match,
			"ports": []any{map[string]any{"port": int64(80), "targetPort": int64(8080)}},
		}})
		svc["metadata"].(map[string]any)["labels"] = map[string]any{fluxdiff.LabelName: w.ks, fluxdiff.LabelNamespace: webNS}
		e.add(servicesGVR, svc)
	}
}
