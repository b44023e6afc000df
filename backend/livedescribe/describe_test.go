package livedescribe

import (
	"context"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

func TestDescribeShowsRecordsNotSecrets(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := demo.Start(ctx, demo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := &Describer{Cluster: func(string) (*kube.Cluster, bool) { return c, true }}

	app, err := d.Describe(ctx, model.Key{Context: c.Context, Engine: model.EngineArgoCD, Namespace: "argocd", Name: "search-indexer"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(app.YAML, "kind: Application") || strings.Contains(app.YAML, "managedFields") {
		t.Errorf("YAML must show the object without managedFields")
	}
	if len(app.History) == 0 || app.History[0].ID < app.History[len(app.History)-1].ID {
		t.Errorf("history must be newest first: %+v", app.History)
	}
	if len(app.Resources) == 0 {
		t.Error("no resources")
	}
	for _, e := range app.Events {
		if e.Reason == "" {
			t.Errorf("event without reason: %+v", e)
		}
	}

	stack, err := d.Describe(ctx, model.Key{Context: c.Context, Engine: model.EnginePulumi, Namespace: "infra", Name: "network-prod"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stack.YAML, "vpc-0c81f2a9e4d5b6a71") || !strings.Contains(stack.YAML, "vpcId: '[hidden]'") || len(stack.Outputs) != 2 {
		t.Errorf("Stack output values must be hidden, their names listed: %v\n%s", stack.Outputs, stack.YAML)
	}
	if _, err := d.Describe(ctx, model.Key{Context: c.Context, Engine: model.EngineArgoCD, Namespace: "argocd", Name: "nope"}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a missing unit: %v", err)
	}
}
