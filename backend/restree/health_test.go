package restree

import (
	"strings"
	"testing"
)

func TestHealthFollowsArgoCDRulesPerKind(t *testing.T) {
	cases := []struct {
		name   string
		obj    map[string]any
		want   Health
		reason string
	}{
		{"deployment paused", obj("apps/v1", "Deployment", "n", "d", "u", "", map[string]any{"spec": map[string]any{"paused": true}}), Suspended, "Deployment is paused"},
		{"deployment not observed", obj("apps/v1", "Deployment", "n", "d", "u", "", map[string]any{"metadata": map[string]any{"name": "d", "generation": int64(2)}, "status": map[string]any{"observedGeneration": int64(1)}}), Progressing, "generation less than desired"},
		{"deployment deadline", obj("apps/v1", "Deployment", "n", "d", "u", "", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Progressing", "reason": "ProgressDeadlineExceeded"}}}}), Degraded, `"d" exceeded its progress deadline`},
		{"deployment updating", deployment("n", "d", "u", 3, 1, 1), Progressing, "1 out of 3 new replicas have been updated"},
		{"deployment healthy", deployment("n", "d", "u", 3, 3, 3), Healthy, ""},
		{"replicaset failure", obj("apps/v1", "ReplicaSet", "n", "r", "u", "", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "ReplicaFailure", "status": "True", "message": "pods \"r-1\" is forbidden: exceeded quota"}}}}), Degraded, "exceeded quota"},
		{"replicaset short", replicaSet("n", "r", "u", "", 2, 1), Progressing, "1 out of 2 new replicas are available"},
		{"statefulset not ready", obj("apps/v1", "StatefulSet", "n", "s", "u", "", map[string]any{"spec": map[string]any{"replicas": int64(3)}, "status": map[string]any{"observedGeneration": int64(1), "readyReplicas": int64(1)}, "metadata": map[string]any{"generation": int64(1)}}), Progressing, "Waiting for 2 pods to be ready"},
		{"statefulset rolling", obj("apps/v1", "StatefulSet", "n", "s", "u", "", map[string]any{"spec": map[string]any{"replicas": int64(1), "updateStrategy": map[string]any{"type": "RollingUpdate"}}, "status": map[string]any{"observedGeneration": int64(1), "readyReplicas": int64(1), "updateRevision": "s-2", "currentRevision": "s-1"}, "metadata": map[string]any{"generation": int64(1)}}), Progressing, "revision s-2"},
		{"statefulset partition", obj("apps/v1", "StatefulSet", "n", "s", "u", "", map[string]any{"spec": map[string]any{"replicas": int64(3), "updateStrategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"partition": int64(1)}}}, "status": map[string]any{"observedGeneration": int64(1), "readyReplicas": int64(3), "updatedReplicas": int64(1)}, "metadata": map[string]any{"generation": int64(1)}}), Progressing, "1 out of 2 new pods"},
		{"daemonset rolling", obj("apps/v1", "DaemonSet", "n", "ds", "u", "", map[string]any{"status": map[string]any{"observedGeneration": int64(1), "desiredNumberScheduled": int64(3), "updatedNumberScheduled": int64(3), "numberAvailable": int64(2)}, "metadata": map[string]any{"name": "ds", "generation": int64(1)}}), Progressing, "2 of 3 updated pods are available"},
		{"job failed", obj("batch/v1", "Job", "n", "j", "u", "", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Failed", "status": "True", "message": "Job has reached the specified backoff limit"}}}}), Degraded, "backoff limit"},
		{"job complete", obj("batch/v1", "Job", "n", "j", "u", "", map[string]any{"status": map[string]any{"conditions": []any{map[string]any{"type": "Complete", "status": "True"}}}}), Healthy, ""},
		{"job running", obj("batch/v1", "Job", "n", "j", "u", "", nil), Progressing, ""},
		{"pod crashloop", crashingPod("n", "p", "u", ""), Degraded, "CrashLoopBackOff"},
		{"pod image pull", obj("v1", "Pod", "n", "p", "u", "", map[string]any{"status": map[string]any{"phase": "Pending", "containerStatuses": []any{map[string]any{"name": "c", "state": map[string]any{"waiting": map[string]any{"reason": "ErrImagePull"}}}}}}), Degraded, "ErrImagePull"},
		{"hook pod pulling stays progressing", obj("v1", "Pod", "n", "p", "u", "", map[string]any{"spec": map[string]any{"restartPolicy": "Never"}, "status": map[string]any{"phase": "Pending", "containerStatuses": []any{map[string]any{"name": "c", "state": map[string]any{"waiting": map[string]any{"reason": "ImagePullBackOff"}}}}}}), Progressing, ""},
		{"pod failed", obj("v1", "Pod", "n", "p", "u", "", map[string]any{"spec": map[string]any{"restartPolicy": "Never"}, "status": map[string]any{"phase": "Failed", "containerStatuses": []any{map[string]any{"name": "c", "state": map[string]any{"terminated": map[string]any{"exitCode": int64(2)}}}}}}), Degraded, `"c" failed with exit code 2`},
		{"pod not ready after restart", obj("v1", "Pod", "n", "p", "u", "", map[string]any{"status": map[string]any{"phase": "Running", "containerStatuses": []any{map[string]any{"name": "c", "lastState": map[string]any{"terminated": map[string]any{"reason": "OOMKilled"}}}}}}), Degraded, "OOMKilled"},
		{"pod ready", readyPod("n", "p", "u", ""), Healthy, ""},
		{"service load balancer pending", obj("v1", "Service", "n", "s", "u", "", map[string]any{"spec": map[string]any{"type": "LoadBalancer"}}), Progressing, "load balancer"},
		{"service cluster ip", obj("v1", "Service", "n", "s", "u", "", map[string]any{"spec": map[string]any{"type": "ClusterIP"}}), Healthy, ""},
		{"ingress without address", obj("networking.k8s.io/v1", "Ingress", "n", "i", "u", "", nil), Progressing, "address"},
		{"ingress with address", obj("networking.k8s.io/v1", "Ingress", "n", "i", "u", "", map[string]any{"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "10.0.0.1"}}}}}), Healthy, ""},
	}
	for _, c := range cases {
		h, reason, ok := HealthOf(c.obj)
		if !ok || h != c.want || !strings.Contains(reason, c.reason) {
			t.Errorf("%s: got %s %q (known %v), want %s containing %q", c.name, h, reason, ok, c.want, c.reason)
		}
	}
	if _, _, ok := HealthOf(obj("v1", "ConfigMap", "n", "c", "u", "", nil)); ok {
		t.Error("a ConfigMap has no health rule")
	}
}
