package demo

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/demo/inmem"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// The live workloads of the demo's Applications, as their controllers and
// the kubelet would have written them, so that resource trees can be
// browsed: every Deployment with its ReplicaSet and Pods, every StatefulSet
// with its Pods, Services and Ingresses; payments-api crash-looping past its
// progress deadline; search-indexer's StatefulSet waiting on a Pod that is
// not ready while a Sync hook Job runs.
var (
	deploymentsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	replicaSetsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	statefulSetsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}
	daemonSetsGVR   = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	jobsGVR         = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	podsGVR         = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	servicesGVR     = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	ingressesGVR    = schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}
)

// liveResources are the workload kinds the demo API serves besides the
// GitOps ones.
var liveResources = []inmem.Resource{
	{GVR: deploymentsGVR, Kind: "Deployment", Namespaced: true, Status: true, ShortNames: []string{"deploy"}},
	{GVR: replicaSetsGVR, Kind: "ReplicaSet", Namespaced: true, Status: true, ShortNames: []string{"rs"}},
	{GVR: statefulSetsGVR, Kind: "StatefulSet", Namespaced: true, Status: true, ShortNames: []string{"sts"}},
	{GVR: daemonSetsGVR, Kind: "DaemonSet", Namespaced: true, Status: true, ShortNames: []string{"ds"}},
	{GVR: jobsGVR, Kind: "Job", Namespaced: true, Status: true},
	{GVR: podsGVR, Kind: "Pod", Namespaced: true, Status: true, ShortNames: []string{"po"}},
	{GVR: servicesGVR, Kind: "Service", Namespaced: true, Status: true, ShortNames: []string{"svc"}},
	{GVR: ingressesGVR, Kind: "Ingress", Namespaced: true, Status: true, ShortNames: []string{"ing"}},
}

const (
	// hookJob is the Sync hook search-indexer's stuck operation runs.
	hookJob      = appStuck + "-reindex"
	crashMessage = "back-off 5m0s restarting failed container=payments-api pod=payments-api-6d9f7c5b8-x2x9q"
)

// live adds the live objects of every Application's workloads.
func (e *estate) live() {
	for _, app := range e.objects[argocd.Applications] {
		name := app.GetName()
		for _, res := range objread.New(app.Object).Objects("status", "resources") {
			ns, n := res.Str("namespace"), res.Str("name")
			switch res.Str("group") + "/" + res.Str("kind") {
			case "apps/Deployment":
				e.deployment(ns, n, name == appFailing)
			case "apps/StatefulSet":
				e.statefulSet(ns, n, name == appStuck)
			case "/Service":
				e.add(servicesGVR, e.object("v1", "Service", ns, n, nil, map[string]any{
					"spec": map[string]any{"type": "ClusterIP", "selector": map[string]any{"app": n}, "ports": []any{map[string]any{"port": int64(80)}}}}))
			case "batch/Job":
				e.completedJob(ns, n)
			case "networking.k8s.io/Ingress":
				e.add(ingressesGVR, e.object("networking.k8s.io/v1", "Ingress", ns, n, nil, map[string]any{
					"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"hostname": n + ".lb.acme.internal"}}}}}))
			}
		}
		if name == appStuck {
			e.hook(app.Object)
		}
	}
}

// object is a live object with a stable uid, owned by owner when given.
func (e *estate) object(apiVersion, kind, ns, name string, owner map[string]any, extra map[string]any) map[string]any {
	md := metadata(ns, name, map[string]any{"uid": e.uid(kind, ns, name), "creationTimestamp": e.ago(26 * time.Hour),
		"generation": int64(1), "labels": map[string]any{"app": name}})
	if owner != nil {
		md["ownerReferences"] = []any{owner}
	}
	obj := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md}
	for k, v := range extra {
		obj[k] = v
	}
	return obj
}

func (e *estate) ownerRef(apiVersion, kind, ns, name string) map[string]any {
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "name": name, "uid": e.uid(kind, ns, name), "controller": true, "blockOwnerDeletion": true}
}

// deployment is a Deployment with its ReplicaSet and two Pods; crashing,
// one Pod crash-loops and the rollout is past its progress deadline.
func (e *estate) deployment(ns, name string, crashing bool) {
	available := int64(2)
	conds := []any{map[string]any{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
		map[string]any{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}}
	if crashing {
		available = 1
		conds[1] = map[string]any{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded",
			"message": fmt.Sprintf("ReplicaSet %q has timed out progressing.", name+"-6d9f7c5b8")}
	}
	status := map[string]any{"observedGeneration": int64(1), "replicas": int64(2), "updatedReplicas": int64(2),
		"readyReplicas": available, "availableReplicas": available, "conditions": conds}
	e.add(deploymentsGVR, e.object("apps/v1", "Deployment", ns, name, nil, map[string]any{"spec": map[string]any{"replicas": int64(2)}, "status": status}))
	rs := name + "-6d9f7c5b8"
	e.add(replicaSetsGVR, e.object("apps/v1", "ReplicaSet", ns, rs, e.ownerRef("apps/v1", "Deployment", ns, name), map[string]any{
		"spec":   map[string]any{"replicas": int64(2)},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(2), "readyReplicas": available, "availableReplicas": available}}))
	owner := e.ownerRef("apps/v1", "ReplicaSet", ns, rs)
	e.add(podsGVR, e.object("v1", "Pod", ns, rs+"-h7k2m", owner, readyPodParts(name)))
	if crashing {
		e.add(podsGVR, e.object("v1", "Pod", ns, rs+"-x2x9q", owner, map[string]any{
			"spec": map[string]any{"restartPolicy": "Always", "containers": []any{map[string]any{"name": name}}},
			"status": map[string]any{"phase": "Running",
				"conditions": []any{map[string]any{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}},
				"containerStatuses": []any{map[string]any{"name": name, "ready": false, "restartCount": int64(14),
					"state":     map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff", "message": crashMessage}},
					"lastState": map[string]any{"terminated": map[string]any{"reason": "Error", "exitCode": int64(1)}}}}}}))
		return
	}
	e.add(podsGVR, e.object("v1", "Pod", ns, rs+"-q9w4z", owner, readyPodParts(name)))
}

func readyPodParts(container string) map[string]any {
	return map[string]any{
		"spec": map[string]any{"restartPolicy": "Always", "containers": []any{map[string]any{"name": container}}},
		"status": map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}},
			"containerStatuses": []any{map[string]any{"name": container, "ready": true, "state": map[string]any{"running": map[string]any{}}}}},
	}
}

// statefulSet is a StatefulSet with three Pods; waiting, the last is not
// ready (its readiness probe fails), which the stuck sync waits for.
func (e *estate) statefulSet(ns, name string, waiting bool) {
	ready := int64(3)
	if waiting {
		ready = 2
	}
	e.add(statefulSetsGVR, e.object("apps/v1", "StatefulSet", ns, name, nil, map[string]any{
		"spec": map[string]any{"replicas": int64(3), "updateStrategy": map[string]any{"type": "RollingUpdate"}},
		"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(3), "readyReplicas": ready, "currentReplicas": int64(3),
			"updatedReplicas": int64(3), "currentRevision": name + "-7b8c9d", "updateRevision": name + "-7b8c9d"}}))
	owner := e.ownerRef("apps/v1", "StatefulSet", ns, name)
	for i := range 3 {
		parts := readyPodParts(name)
		if waiting && i == 2 {
			parts["status"] = map[string]any{"phase": "Running", "message": "Readiness probe failed: HTTP probe failed with statuscode: 503",
				"conditions":        []any{map[string]any{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}},
				"containerStatuses": []any{map[string]any{"name": name, "ready": false, "state": map[string]any{"running": map[string]any{}}}}}
		}
		e.add(podsGVR, e.object("v1", "Pod", ns, fmt.Sprintf("%s-%d", name, i), owner, parts))
	}
}

// hook gives the stuck sync of search-indexer a Sync hook Job that is still
// running, with its Pod.
func (e *estate) hook(app map[string]any) {
	ns := objread.New(app).Str("spec", "destination", "namespace")
	st := app["status"].(map[string]any)["operationState"].(map[string]any)
	st["syncResult"] = map[string]any{"revision": "main", "resources": []any{map[string]any{
		"group": "batch", "version": "v1", "kind": "Job", "namespace": ns, "name": hookJob,
		"hookType": "Sync", "hookPhase": "Running", "syncPhase": "Sync", "message": "job is running: 1 of 1 pods active",
	}}}
	e.add(jobsGVR, e.object("batch/v1", "Job", ns, hookJob, nil, map[string]any{
		"metadata": metadata(ns, hookJob, map[string]any{"uid": e.uid("Job", ns, hookJob), "creationTimestamp": e.ago(24 * time.Minute),
			"annotations": map[string]any{"argocd.argoproj.io/hook": "Sync"}}),
		"spec":   map[string]any{"backoffLimit": int64(2)},
		"status": map[string]any{"active": int64(1), "startTime": e.ago(24 * time.Minute)}}))
	e.add(podsGVR, e.object("v1", "Pod", ns, hookJob+"-8kq2d", e.ownerRef("batch/v1", "Job", ns, hookJob), map[string]any{
		"spec":   map[string]any{"restartPolicy": "Never", "containers": []any{map[string]any{"name": "reindex"}}},
		"status": map[string]any{"phase": "Running", "containerStatuses": []any{map[string]any{"name": "reindex", "ready": true, "state": map[string]any{"running": map[string]any{}}}}}}))
}

// completedJob is a hook Job of an earlier sync that succeeded, with its Pod.
func (e *estate) completedJob(ns, name string) {
	e.add(jobsGVR, e.object("batch/v1", "Job", ns, name, nil, map[string]any{
		"status": map[string]any{"succeeded": int64(1), "conditions": []any{map[string]any{"type": "Complete", "status": "True"}}}}))
	e.add(podsGVR, e.object("v1", "Pod", ns, name+"-5tq8n", e.ownerRef("batch/v1", "Job", ns, name), map[string]any{
		"spec":   map[string]any{"restartPolicy": "Never", "containers": []any{map[string]any{"name": name}}},
		"status": map[string]any{"phase": "Succeeded"}}))
}
