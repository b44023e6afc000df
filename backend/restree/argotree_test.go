package restree

import (
	"encoding/json"
	"testing"
)

// The tree Argo CD's API server keeps: its managed resources with the
// health the controller computed, and what they own by parentRefs.
func TestATreeFromArgoCDNestsByParentRefsWithItsHealth(t *testing.T) {
	var app map[string]any
	var nodes []map[string]any
	if err := json.Unmarshal([]byte(`{"status":{"resources":[
		{"group":"apps","kind":"Deployment","namespace":"web","name":"api","version":"v1","status":"Synced"},
		{"kind":"Service","namespace":"web","name":"gone","version":"v1","status":"OutOfSync"}]}}`), &app); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`[
		{"group":"apps","kind":"Deployment","namespace":"web","name":"api","version":"v1","uid":"d1","health":{"status":"Degraded","message":"Deployment exceeded its progress deadline"}},
		{"group":"apps","kind":"ReplicaSet","namespace":"web","name":"api-5d","version":"v1","uid":"r1","parentRefs":[{"group":"apps","kind":"Deployment","name":"api","uid":"d1"}],"health":{"status":"Progressing"}},
		{"kind":"Pod","namespace":"web","name":"api-5d-x","version":"v1","uid":"p1","parentRefs":[{"group":"apps","kind":"ReplicaSet","name":"api-5d","uid":"r1"}],"health":{"status":"Degraded","message":"CrashLoopBackOff"}}]`), &nodes); err != nil {
		t.Fatal(err)
	}
	tr := BuildFromArgo(app, nodes)
	d := tr.Find(Ref{Group: "apps", Kind: "Deployment", Namespace: "web", Name: "api"})
	if d == nil || !d.Live || d.Health != Degraded || d.Reason != "Deployment exceeded its progress deadline" || len(d.Children) != 1 {
		t.Fatalf("the Deployment: %+v", d)
	}
	rs := d.Children[0]
	if rs.Name != "api-5d" || len(rs.Children) != 1 || rs.Children[0].Name != "api-5d-x" || rs.Children[0].Reason != "CrashLoopBackOff" {
		t.Errorf("what the Deployment owns: %+v", rs)
	}
	if gone := tr.Find(Ref{Kind: "Service", Namespace: "web", Name: "gone"}); gone == nil || gone.Live || gone.Health != Missing {
		t.Errorf("a managed Service not in Argo CD's tree: %+v; want Missing", gone)
	}
}
