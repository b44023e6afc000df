package fleetgen

import (
	"encoding/json"
	"strings"
	"time"
)

// ChurnPatch is a JSON merge patch of Application status the way the Argo CD
// controller writes one after a refresh: a new reconciledAt and, every other
// time, a flip between Synced/Healthy and OutOfSync/Progressing, so the row
// visibly changes.
func ChurnPatch(n int, now time.Time) []byte {
	sync, health := "Synced", "Healthy"
	if n%2 == 1 {
		sync, health = "OutOfSync", "Progressing"
	}
	p, _ := json.Marshal(map[string]any{"status": map[string]any{
		"reconciledAt": stamp(now),
		"sync":         map[string]any{"status": sync},
		"health":       map[string]any{"status": health, "lastTransitionTime": stamp(now)},
	}})
	return p
}

// FluxChurnPatch is a JSON merge patch of a Kustomization's, HelmRelease's
// or Terraform's status the way their controllers write one at a
// reconcile: the request handled and, every other time, Ready flipping
// between True and a reconcile in progress, so the row visibly changes.
func FluxChurnPatch(n int, now time.Time) []byte {
	conds := []any{condition("Ready", "True", "ReconciliationSucceeded", "Applied revision: main@sha1:"+commit("churn", n)[:12], 1, now)}
	if n%2 == 1 {
		msg := "reconciliation in progress"
		conds = []any{condition("Reconciling", "True", "Progressing", msg, 1, now), condition("Ready", "Unknown", "Progressing", msg, 1, now)}
	}
	p, _ := json.Marshal(map[string]any{"status": map[string]any{"lastHandledReconcileAt": stamp(now), "conditions": conds}})
	return p
}

// ObjectPath is the API path of a generated object, read from its metadata.
func ObjectPath(collection string, obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	i := strings.LastIndexByte(collection, '/')
	return collection[:i] + "/namespaces/" + ns + collection[i:] + "/" + name
}
