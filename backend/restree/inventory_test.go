package restree

import (
	"slices"
	"testing"
)

func TestAKustomizationsInventoryIsReadAsItsControllerWritesIt(t *testing.T) {
	ks := map[string]any{"status": map[string]any{"inventory": map[string]any{"entries": []any{
		map[string]any{"id": "shop_api_apps_Deployment", "v": "v1"},
		map[string]any{"id": "_shop__Namespace", "v": "v1"},
		map[string]any{"id": "shop_api-config__ConfigMap", "v": "v1"},
		map[string]any{"id": "not-an-id", "v": "v1"},
	}}}}
	refs, versions, bad := InventoryRefs(ks)
	want := []Ref{{"apps", "Deployment", "shop", "api"}, {"", "Namespace", "", "shop"}, {"", "ConfigMap", "shop", "api-config"}}
	if !slices.Equal(refs, want) || versions[want[0]] != "v1" || !slices.Equal(bad, []string{"not-an-id"}) {
		t.Fatalf("refs %v, versions %v, bad %v", refs, versions, bad)
	}

	live := []map[string]any{
		{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"namespace": "shop", "name": "api", "uid": "d", "generation": int64(1)},
			"spec": map[string]any{"replicas": int64(1)}, "status": map[string]any{"observedGeneration": int64(1), "replicas": int64(1), "updatedReplicas": int64(1), "availableReplicas": int64(1)}},
		{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"namespace": "shop", "name": "api-1", "uid": "p", "ownerReferences": []any{map[string]any{"uid": "d", "controller": true}}},
			"status": map[string]any{"phase": "Pending", "conditions": []any{map[string]any{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/3 nodes are available: 3 Insufficient cpu."}}}},
	}
	tr := BuildRecorded(refs, versions, live, LiveKinds())
	if tr.PerResource || len(tr.Roots) != 3 || len(tr.Notes) != 0 || tr.Roots[1].Version != "v1" {
		t.Fatalf("tree %+v", tr)
	}
	rows := tr.Rows()
	if rows[0].Node.Kind != "ConfigMap" || rows[0].Node.Health != "" || rows[1].Node.Kind != "Deployment" || rows[1].Node.Health != Healthy {
		t.Errorf("roots sorted by kind, health where the kind has one: %v %v", rows[0].Node, rows[1].Node)
	}
	if pod := rows[2].Node; pod.Kind != "Pod" || pod.Health != Progressing || pod.Reason != "0/3 nodes are available: 3 Insufficient cpu." {
		t.Errorf("the unschedulable Pod under its Deployment says why: %+v", pod)
	}
}

func TestAFluxObjectsHealthIsItsReadyCondition(t *testing.T) {
	obj := func(suspend bool, generation, observed int64, ready ...string) map[string]any {
		o := map[string]any{"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
			"metadata": map[string]any{"generation": generation}, "spec": map[string]any{"suspend": suspend},
			"status": map[string]any{"observedGeneration": observed}}
		if len(ready) == 2 {
			o["status"].(map[string]any)["conditions"] = []any{map[string]any{"type": "Ready", "status": ready[0], "message": ready[1]}}
		}
		return o
	}
	cases := []struct {
		name   string
		obj    map[string]any
		health Health
		reason string
	}{
		{"ready", obj(false, 2, 2, "True", "Applied revision: main@sha1:1"), Healthy, "Applied revision: main@sha1:1"},
		{"ready, but for an older spec", obj(false, 3, 2, "True", "Applied revision: main@sha1:1"), Progressing, "Waiting for the controller to observe generation 3"},
		{"failed before it recorded a generation", obj(false, 1, -1, "False", "Source artifact not found"), Degraded, "Source artifact not found"},
		{"under way", obj(false, 1, 1, "Unknown", "Reconciliation in progress"), Progressing, "Reconciliation in progress"},
		{"suspended", obj(true, 1, 1, "False", "x"), Suspended, "Reconciliation suspended"},
		{"not yet reported", obj(false, 1, 0), Progressing, "Waiting for the controller to report its Ready condition"},
	}
	for _, c := range cases {
		h, reason, ok := HealthOf(c.obj)
		if !ok || h != c.health || reason != c.reason {
			t.Errorf("%s: %s %q (ok %v), want %s %q", c.name, h, reason, ok, c.health, c.reason)
		}
	}
}
