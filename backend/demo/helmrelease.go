package demo

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// promRelease is kube-prometheus-stack's failed release (v9: its grafana
// Deployment's selector cannot change), what its tree lists.
const (
	promRelease        = 9
	promGrafana        = hrExhausted + "-grafana"
	promOperator       = hrExhausted + "-operator"
	promStateMetrics   = hrExhausted + "-kube-state-metrics"
	promReleaseVersion = "65.1.0"
)

// promManifest is the manifest of that release, as Helm stores it.
var promManifest = fmt.Sprintf(`---
# Source: kube-prometheus-stack/charts/grafana/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: %[1]s
  namespace: monitoring
---
# Source: kube-prometheus-stack/charts/grafana/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s
  namespace: monitoring
---
# Source: kube-prometheus-stack/templates/prometheus-operator/clusterrole.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: %[2]s
---
# Source: kube-prometheus-stack/charts/grafana/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: %[1]s
  namespace: monitoring
---
# Source: kube-prometheus-stack/templates/prometheus-operator/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: %[2]s
  namespace: monitoring
---
# Source: kube-prometheus-stack/charts/grafana/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: monitoring
---
# Source: kube-prometheus-stack/charts/kube-state-metrics/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[3]s
  namespace: monitoring
---
# Source: kube-prometheus-stack/templates/prometheus-operator/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[2]s
  namespace: monitoring
`, promGrafana, promOperator, promStateMetrics)

// promWorkloads are the release's live Deployments, each with its
// ReplicaSet and Pods: grafana still runs the previous release's pods, one
// of them crash-looping on the new datasource it was half given.
func (e *estate) promWorkloads() {
	for _, w := range []struct {
		name            string
		replicas, ready int64
	}{{promGrafana, 2, 1}, {promOperator, 1, 1}, {promStateMetrics, 1, 1}} {
		match := map[string]any{"app.kubernetes.io/name": w.name}
		e.add(deploymentsGVR, e.object("apps/v1", "Deployment", monitoringNS, w.name, nil, map[string]any{
			"spec": map[string]any{"replicas": w.replicas, "selector": map[string]any{"matchLabels": match}},
			"status": map[string]any{"observedGeneration": int64(1), "replicas": w.replicas, "updatedReplicas": w.replicas,
				"readyReplicas": w.ready, "availableReplicas": w.ready},
		}))
		e.add(servicesGVR, e.object("v1", "Service", monitoringNS, w.name, nil, map[string]any{"spec": map[string]any{"selector": match}}))
		rs := w.name + "-6d8f7c9b5"
		e.add(replicaSetsGVR, e.object("apps/v1", "ReplicaSet", monitoringNS, rs, e.ownerRef("apps/v1", "Deployment", monitoringNS, w.name), map[string]any{
			"spec":   map[string]any{"replicas": w.replicas},
			"status": map[string]any{"observedGeneration": int64(1), "replicas": w.replicas, "readyReplicas": w.ready, "availableReplicas": w.ready}}))
		owner := e.ownerRef("apps/v1", "ReplicaSet", monitoringNS, rs)
		for i := range w.replicas {
			pod := fmt.Sprintf("%s-%c%c%03d", rs, 'p'+rune(i), 'x'+rune(i), 200+i*41)
			if i < w.ready {
				e.add(podsGVR, e.object("v1", "Pod", monitoringNS, pod, owner, readyPodParts(w.name)))
				continue
			}
			e.add(podsGVR, e.object("v1", "Pod", monitoringNS, pod, owner, map[string]any{
				"spec": map[string]any{"restartPolicy": "Always", "containers": []any{map[string]any{"name": "grafana"}}},
				"status": map[string]any{"phase": "Running", "containerStatuses": []any{map[string]any{"name": "grafana", "ready": false, "restartCount": int64(14),
					"state": map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff",
						"message": "back-off 5m0s restarting failed container=grafana"}}}}},
			}))
		}
	}
}

// seedReleaseSecrets stores the demo's Helm releases as Helm's Secret
// driver does (the release JSON gzipped, base64), the values with them:
// kube-prometheus-stack's failed v9, web-cache's deployed v3.
func seedReleaseSecrets(ctx context.Context, kc kubernetes.Interface) error {
	for _, r := range []map[string]any{{
		"name": hrExhausted, "namespace": monitoringNS, "version": promRelease,
		"manifest": promManifest, "config": map[string]any{"grafana": map[string]any{"adminPassword": "demo-grafana-admin"}},
		"info":  map[string]any{"status": "failed", "description": "Upgrade \"kube-prometheus-stack\" failed"},
		"chart": map[string]any{"metadata": map[string]any{"name": hrExhausted, "version": promReleaseVersion}},
	}, {
		"name": hrCache, "namespace": webNS, "version": cacheRelease,
		"manifest": cacheManifest, "config": map[string]any{"replicas": 2},
		"info":  map[string]any{"status": "deployed", "description": "Upgrade complete"},
		"chart": map[string]any{"metadata": map[string]any{"name": hrCache, "version": cacheReleased}},
	}} {
		if err := storeRelease(ctx, kc, r); err != nil {
			return err
		}
	}
	return nil
}

func storeRelease(ctx context.Context, kc kubernetes.Interface, release map[string]any) error {
	rel, err := json.Marshal(release)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(rel); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	name, ns, v := release["name"].(string), release["namespace"].(string), fmt.Sprint(release["version"])
	status := release["info"].(map[string]any)["status"].(string)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sh.helm.release.v1." + name + ".v" + v,
			Labels: map[string]string{"owner": "helm", "name": name, "status": status, "version": v}},
		Type: "helm.sh/release.v1",
		Data: map[string][]byte{"release": []byte(base64.StdEncoding.EncodeToString(buf.Bytes()))},
	}
	_, err = kc.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{})
	return err
}
