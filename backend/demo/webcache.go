package demo

import (
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/fluxdiff"
)

// web-cache is team-web's HelmRelease of the web-cache chart in the
// embedded charts repository: released at 0.4.0 (v3, six days ago) with
// two replicas; the repository has moved to 0.5.0 (Redis 7.4 and a memory
// cap), which its next reconcile upgrades to and its diff shows.
const (
	hrCache        = "web-cache"
	cacheRelease   = 3
	cacheReleased  = "0.4.0"
	cacheChartPath = "./web-cache"
)

// cacheManifest is release v3's manifest: the chart at 0.4.0 rendered with
// the HelmRelease's values, labelled by helm-controller.
var cacheManifest = fmt.Sprintf(`---
# Source: web-cache/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web-cache
  labels:
    app.kubernetes.io/name: web-cache
    helm.sh/chart: web-cache-0.4.0
    %[1]s: web-cache
    %[2]s: team-web
spec:
  selector:
    app.kubernetes.io/name: web-cache
  ports:
    - port: 6379
---
# Source: web-cache/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-cache-config
  labels:
    app.kubernetes.io/name: web-cache
    helm.sh/chart: web-cache-0.4.0
    %[1]s: web-cache
    %[2]s: team-web
data:
  redis.conf: |
    appendonly no
---
# Source: web-cache/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-cache
  labels:
    app.kubernetes.io/name: web-cache
    helm.sh/chart: web-cache-0.4.0
    %[1]s: web-cache
    %[2]s: team-web
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: web-cache
  template:
    metadata:
      labels:
        app.kubernetes.io/name: web-cache
    spec:
      containers:
        - name: redis
          image: redis:7.2.5
          args: ["/etc/redis/redis.conf"]
          ports:
            - containerPort: 6379
`, fluxdiff.LabelHelmReleaseName, fluxdiff.LabelHelmReleaseNamespace)

// webCache adds the charts GitRepository, the HelmRelease and what its
// release runs.
func (e *estate) webCache() {
	revision := "main@sha1:" + chartsHeadCommit
	e.fluxObject(gitRepositories, "GitRepository", webNS, "charts", 1, nil,
		map[string]any{"interval": "5m", "url": chartsRepo, "ref": map[string]any{"branch": "main"}},
		map[string]any{
			"artifact":   map[string]any{"revision": revision, "lastUpdateTime": e.ago(2 * time.Minute)},
			"conditions": conds(condition("Ready", "True", "Succeeded", "stored artifact for revision '"+revision+"'", e.now.Add(-2*time.Minute))),
		})
	msg := "Helm upgrade succeeded for release team-web/web-cache.v3 with chart web-cache@" + cacheReleased
	e.fluxObject(flux.HelmReleases[0], "HelmRelease", webNS, hrCache, 2, nil,
		map[string]any{
			"interval": "1h", "releaseName": hrCache,
			"chart": map[string]any{"spec": map[string]any{"chart": cacheChartPath,
				"sourceRef": map[string]any{"kind": "GitRepository", "name": "charts"}}},
			"values": map[string]any{"replicas": int64(2)},
		},
		map[string]any{
			"lastAttemptedRevision": cacheReleased, "storageNamespace": webNS, "helmChart": webNS + "/" + webNS + "-" + hrCache,
			"history": []any{e.release(cacheRelease, "deployed", hrCache, cacheReleased, "7.2", 6*24*time.Hour)},
			"conditions": conds(condition("Ready", "True", "UpgradeSucceeded", msg, e.now.Add(-6*24*time.Hour)),
				condition("Released", "True", "UpgradeSucceeded", msg, e.now.Add(-6*24*time.Hour))),
		})
	match := map[string]any{"app.kubernetes.io/name": hrCache}
	labels := map[string]any{"app.kubernetes.io/name": hrCache, "helm.sh/chart": "web-cache-" + cacheReleased,
		fluxdiff.LabelHelmReleaseName: hrCache, fluxdiff.LabelHelmReleaseNamespace: webNS}
	dep := e.object("apps/v1", "Deployment", webNS, hrCache, nil, map[string]any{
		"spec": map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": match}},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(2), "updatedReplicas": int64(2),
			"readyReplicas": int64(2), "availableReplicas": int64(2)},
	})
	dep["metadata"].(map[string]any)["labels"] = labels
	e.add(deploymentsGVR, dep)
	svc := e.object("v1", "Service", webNS, hrCache, nil, map[string]any{"spec": map[string]any{"selector": match,
		"ports": []any{map[string]any{"port": int64(6379)}}}})
	svc["metadata"].(map[string]any)["labels"] = labels
	e.add(servicesGVR, svc)
	e.fluxPods(hrCache, 2, 2)
}
