package demo_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
	"github.com/driftdeck/driftdeck/backend/testkit/testbin"
)

var analytics = model.Key{Context: demo.ContextName, Engine: model.EnginePulumi, Namespace: "infra", Name: "analytics-preview"}

// The demo's analytics Stack previews for real with the release helper and
// the real pulumi CLI, streaming each step; approving applies exactly that
// plan: the state afterwards holds what the preview showed, and nothing is
// left to do.
func TestDemoStackPreviewsAndAppliesForReal(t *testing.T) {
	cli := pulumiruntest.CLI(t)
	t.Setenv(pulumirun.HelperEnv, testbin.Build(t, "github.com/driftdeck/driftdeck/cmd/driftdeck-pulumi"))
	c, _, _, _ := startDemo(t)
	tg, ok := demo.ProgramTarget(c, analytics)
	if !ok {
		t.Fatal("the demo ships no program for analytics-preview")
	}
	tg.CLI = cli

	plan := filepath.Join(t.TempDir(), "plan.json")
	var streamed []string
	res, err := pulumirun.Preview(context.Background(), tg, pulumirun.PreviewOptions{PlanPath: plan, OnEvent: func(e pulumirun.Event) {
		if e.Step != nil {
			streamed = append(streamed, e.Step.Name)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]pulumirun.Op{
		"events-bucket": pulumirun.OpUpdate, "warehouse": pulumirun.OpReplace, "ingest-queue": pulumirun.OpCreate,
		"ingest-token": pulumirun.OpCreate, "legacy-export": pulumirun.OpDelete, "dashboards": pulumirun.OpSame,
	}
	shown := map[string]pulumirun.Step{}
	for _, s := range res.Steps {
		shown[s.Name] = s
	}
	for name, op := range want {
		if s := shown[name]; s.Op != op {
			t.Errorf("preview of %s: %q; want %s", name, s.Op, op)
		}
	}
	if len(streamed) < len(want) {
		t.Errorf("streamed steps %v; want one per resource as they arrive", streamed)
	}
	if d := shown["events-bucket"].Diffs; len(d) != 1 || d[0].Path != "input.retentionDays" || d[0].Old != "14" || d[0].New != "30" {
		t.Errorf("events-bucket's diff %v; want retentionDays 14 => 30", d)
	}
	if s := shown["warehouse"]; strings.Join(s.ReplaceKeys, " ") != "input" {
		t.Errorf("warehouse replaced because of %v; want its input (the engine)", s.ReplaceKeys)
	}
	for _, d := range shown["ingest-token"].Diffs {
		if strings.Contains(d.New, "tok-") {
			t.Errorf("the preview shows a secret: %v", d)
		}
	}

	if _, err := pulumirun.ApplyPlan(context.Background(), tg, plan, nil); err != nil {
		t.Fatal(err)
	}
	state := stashInputs(t, tg.BackendURL)
	if _, kept := state["legacy-export"]; kept || state["ingest-queue"] == nil {
		t.Errorf("after the apply the state holds %v; want legacy-export deleted and ingest-queue created", keys(state))
	}
	if ev, _ := state["events-bucket"].(map[string]any); ev["retentionDays"] != 30.0 {
		t.Errorf("events-bucket after the apply: %v; want retentionDays 30", ev)
	}
	if wh := state["warehouse"]; wh != "clickhouse-24.8" {
		t.Errorf("warehouse after the apply: %v; want the new engine", wh)
	}
	again, err := pulumirun.Preview(context.Background(), tg, pulumirun.PreviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range again.Steps {
		if s.Op != pulumirun.OpSame && s.Op != pulumirun.OpRead { // a StackReference is read by every run
			t.Errorf("after the apply a preview still wants to %s %s", s.Op, s.Name)
		}
	}
}

// The demo's analytics Stack holds what it last read of network-prod's
// outputs, the VPC before network was rebuilt: a drift check with the real
// CLI finds that reference changed, says what, and writes nothing.
func TestDemoStackDriftCheckFindsTheRebuiltNetwork(t *testing.T) {
	cli := pulumiruntest.CLI(t)
	t.Setenv(pulumirun.HelperEnv, testbin.Build(t, "github.com/driftdeck/driftdeck/cmd/driftdeck-pulumi"))
	c, _, _, _ := startDemo(t)
	tg, _ := demo.ProgramTarget(c, analytics)
	tg.CLI = cli
	for range 2 { // the second check finds the same: the first wrote nothing
		res, err := pulumirun.DriftCheck(context.Background(), tg, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := res.Drifted()
		if len(d) != 1 || d[0].Name != "organization/network/prod" || len(d[0].Diffs) != 1 ||
			d[0].Diffs[0].String() != `outputs.vpcId: "vpc-04d7a3e9b1c2f8e60" => "vpc-0c81f2a9e4d5b6a71"` {
			t.Fatalf("drift check found %+v; want network-prod's vpcId changed", d)
		}
	}
}

// stashInputs reads the inputs of the Stash resources in the analytics
// stack's state file.
func stashInputs(t *testing.T, backend string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(strings.TrimPrefix(backend, "file://"), ".pulumi", "stacks", "analytics", "prod.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cp struct {
		Checkpoint struct {
			Latest struct {
				Resources []struct {
					URN    string
					Type   string
					Inputs map[string]any
				}
			}
		}
	}
	if err := json.Unmarshal(data, &cp); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for _, r := range cp.Checkpoint.Latest.Resources {
		if r.Type == "pulumi:index:Stash" {
			out[r.URN[strings.LastIndex(r.URN, "::")+2:]] = r.Inputs["input"]
		}
	}
	return out
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Only the demo's own cluster maps a Stack to a program built into the
// helper: a real cluster's Stack of the same name runs its own program.
func TestDemoProgramOnlyForTheDemoCluster(t *testing.T) {
	c, _, _, _ := startDemo(t)
	if _, ok := demo.ProgramTarget(c, model.Key{Context: demo.ContextName, Engine: model.EnginePulumi, Namespace: "infra", Name: "dns-zones"}); ok {
		t.Error("dns-zones, whose program the demo does not ship, is mapped to a demo program")
	}
	other := kube.NewClusterFromClients(demo.ContextName, c.Config, c.Dynamic, c.Kube, "default")
	if _, ok := demo.ProgramTarget(other, analytics); ok {
		t.Error("a cluster the demo did not start runs the demo's program")
	}
}
