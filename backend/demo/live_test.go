package demo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/livetree"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/restree"
)

// The demo's resource trees can be browsed: read through the same reader as
// a real cluster, its one cluster playing every destination.
func TestDemoResourceTreesShowTheUnhealthyAndTheRunningHook(t *testing.T) {
	c, _, _, _ := startDemo(t)
	r := &livetree.Reader{Cluster: func(string) (*kube.Cluster, bool) { return c, true }, Destinations: livetree.Destinations{All: true}}
	read := func(ns, name string) *restree.Tree {
		t.Helper()
		tr, err := r.Read(context.Background(), model.Key{Context: demo.ContextName, Engine: model.EngineArgoCD, Namespace: ns, Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if !tr.LiveRead || len(tr.Notes) > 0 {
			t.Fatalf("%s: live %v, notes %q", name, tr.LiveRead, tr.Notes)
		}
		return tr
	}
	pay := read("team-payments", "payments-api")
	var crash, deploy *restree.Node
	for _, row := range pay.Rows() {
		switch n := row.Node; {
		case n.Kind == "Pod" && n.Health == restree.Degraded:
			crash = n
		case n.Kind == "Deployment" && n.Name == "payments-api":
			deploy = n
		}
	}
	if crash == nil || !strings.Contains(crash.Reason, "CrashLoopBackOff") {
		t.Fatalf("payments-api has a crash-looping pod with its reason: %+v", crash)
	}
	if deploy == nil || deploy.Health != restree.Degraded || !strings.Contains(deploy.Reason, "progress deadline") || len(deploy.Children) != 1 || len(deploy.Children[0].Children) != 2 {
		t.Fatalf("payments-api's Deployment is past its deadline with a ReplicaSet of two pods: %+v", deploy)
	}
	stuck := read("argocd", "search-indexer")
	if len(stuck.Hooks) != 1 {
		t.Fatalf("search-indexer's stuck sync runs one hook: %+v", stuck.Hooks)
	}
	h := stuck.Hooks[0]
	if h.Kind != "Job" || h.HookPhase != "Running" || h.Health != restree.Progressing || len(h.Children) != 1 || h.Children[0].Kind != "Pod" {
		t.Errorf("the hook Job runs with its pod: %+v", h)
	}
	if !strings.Contains(stuck.Summary(), "Progressing") {
		t.Errorf("the StatefulSet waits on a pod: %s", stuck.Summary())
	}
}
