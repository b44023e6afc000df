package stackops

import (
	"context"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// The demo's analytics-preview Stack locates as a Stack run from this
// machine, with the program the demo ships; other demo Stacks, and Stacks
// the user mapped themselves, are left as they are.
func TestDemoStackLocatesItsShippedProgram(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := demo.Start(ctx, demo.Options{Timings: demo.Timings{DriftEvery: -1}})
	if err != nil {
		t.Fatal(err)
	}
	ops := &Ops{Cluster: func(string) (*kube.Cluster, bool) { return c, true }}
	key := func(name string) model.Key {
		return model.Key{Context: c.Context, Engine: model.EnginePulumi, Namespace: "infra", Name: name}
	}

	loc, err := ops.Locate(ctx, key("analytics-preview"))
	if err != nil {
		t.Fatal(err)
	}
	mapDemoProgram(c, loc)
	if loc.Local == nil || !strings.HasPrefix(loc.Backend, "file://") || loc.Ref.Project != "analytics" {
		t.Fatalf("analytics-preview located at %+v; want a local program on the demo's file backend", loc)
	}
	tg, ok := ops.demoTarget(loc, "/opt/pulumi/bin/pulumi")
	if !ok || tg.Inline == "" || tg.Dir != "" || tg.CLI != "/opt/pulumi/bin/pulumi" || tg.BackendURL != loc.Backend || tg.Env["PULUMI_CONFIG_PASSPHRASE"] == "" {
		t.Errorf("analytics-preview runs %+v, %v; want the demo's inline program on its backend with the given CLI", tg, ok)
	}
	if err := tg.Validate(); err != nil {
		t.Errorf("the demo's target is not runnable: %v", err)
	}

	loc = &Location{Key: key("dns-zones")}
	if mapDemoProgram(c, loc); loc.Local != nil {
		t.Errorf("dns-zones is mapped to %+v; the demo ships no program for it", loc.Local)
	}

	mine := &config.StackProgram{Unit: "pulumi/infra/analytics-preview", Dir: "/home/me/analytics"}
	loc = &Location{Key: key("analytics-preview"), Local: mine}
	if mapDemoProgram(c, loc); loc.Local != mine {
		t.Errorf("the demo's program replaced the user's own mapping: %+v", loc.Local)
	}
}
