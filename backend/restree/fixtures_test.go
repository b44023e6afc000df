package restree

// Live objects as their controllers write them, for the builder's tests.

func obj(apiVersion, kind, ns, name, uid string, owner string, extra map[string]any) map[string]any {
	md := map[string]any{"namespace": ns, "name": name, "uid": uid}
	if owner != "" {
		md["ownerReferences"] = []any{map[string]any{"apiVersion": "apps/v1", "kind": "Owner", "name": "o", "uid": owner, "controller": true}}
	}
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md}
	for k, v := range extra {
		o[k] = v
	}
	return o
}

func readyPod(ns, name, uid, owner string) map[string]any {
	return obj("v1", "Pod", ns, name, uid, owner, map[string]any{
		"spec":   map[string]any{"restartPolicy": "Always"},
		"status": map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}},
	})
}

func crashingPod(ns, name, uid, owner string) map[string]any {
	return obj("v1", "Pod", ns, name, uid, owner, map[string]any{
		"spec": map[string]any{"restartPolicy": "Always"},
		"status": map[string]any{"phase": "Running", "containerStatuses": []any{map[string]any{
			"name": "api", "state": map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container=api"}},
		}}},
	})
}

func deployment(ns, name, uid string, replicas, updated, available int64) map[string]any {
	return obj("apps/v1", "Deployment", ns, name, uid, "", map[string]any{
		"metadata": map[string]any{"namespace": ns, "name": name, "uid": uid, "generation": int64(3)},
		"spec":     map[string]any{"replicas": replicas},
		"status":   map[string]any{"observedGeneration": int64(3), "replicas": replicas, "updatedReplicas": updated, "availableReplicas": available},
	})
}

func replicaSet(ns, name, uid, owner string, replicas, available int64) map[string]any {
	rs := obj("apps/v1", "ReplicaSet", ns, name, uid, owner, map[string]any{
		"spec":   map[string]any{"replicas": replicas},
		"status": map[string]any{"replicas": replicas, "availableReplicas": available},
	})
	return rs
}

func application(resources, hooks []any) map[string]any {
	st := map[string]any{"resources": resources}
	if hooks != nil {
		st["operationState"] = map[string]any{"phase": "Running", "syncResult": map[string]any{"resources": hooks}}
	}
	return map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"namespace": "argocd", "name": "shop", "resourceVersion": "42"},
		"spec":     map[string]any{"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "shop"}},
		"status":   st,
	}
}

func managed(group, kind, ns, name, sync string) map[string]any {
	return map[string]any{"group": group, "version": "v1", "kind": kind, "namespace": ns, "name": name, "status": sync}
}
