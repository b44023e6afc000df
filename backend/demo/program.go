package demo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
)

// The Stacks the demo previews and applies for real: analytics-preview and
// network-prod, on the demo's file backend, run by the programs the demo
// ships (package backend/demo/program, inside the driftdeck-pulumi helper).
const (
	analyticsProject = "analytics"
	analyticsStack   = "prod"
	// analyticsProgram is program.Analytics (that package links the Pulumi
	// SDK, which driftdeck itself must not).
	analyticsProgram = "driftdeck-demo/analytics"
	networkProgram   = "driftdeck-demo/network" // program.Network: network-prod's
	// networkRef is the stack whose outputs analytics reads.
	networkRef = "organization/network/prod"
	// demoPassphrase encrypts the demo stack's secrets; it protects nothing
	// but demo values.
	demoPassphrase = "driftdeck-demo"
)

// programs maps the Stacks of each running demo to the runs of their
// programs, by the demo's cluster: only a cluster this process's demo made
// runs a program built into the helper.
var programs = struct {
	sync.Mutex
	byCluster map[*kube.Cluster]map[model.Key]pulumirun.Target
}{byCluster: map[*kube.Cluster]map[model.Key]pulumirun.Target{}}

// ProgramTarget says how to preview and apply a Stack of the demo cluster c
// on this machine: the program the demo ships, with the demo's state
// backend, passphrase, PULUMI_HOME and work directory, all in the demo's
// state backend directory. The caller sets CLI. ok is false for any other
// Stack, and for every Stack of a real cluster.
func ProgramTarget(c *kube.Cluster, k model.Key) (t pulumirun.Target, ok bool) {
	programs.Lock()
	defer programs.Unlock()
	t, ok = programs.byCluster[c][k]
	return t, ok
}

// addPrograms registers the program runs and the source clone cache of
// demo cluster c until forget.
func addPrograms(c *kube.Cluster, dir, sources string) (forget func()) {
	t := pulumirun.Target{
		Stack:      "organization/" + analyticsProject + "/" + analyticsStack,
		Inline:     analyticsProgram,
		Project:    analyticsProject,
		WorkDir:    filepath.Join(dir, "programs", analyticsProject),
		BackendURL: diyBackend{dir: dir}.url(),
		Env:        map[string]string{"PULUMI_CONFIG_PASSPHRASE": demoPassphrase},
		PulumiHome: filepath.Join(dir, "pulumi-home"),
	}
	n := t
	n.Stack, n.Inline, n.Project = "organization/"+diyProject+"/"+diyStack, networkProgram, diyProject
	n.WorkDir = filepath.Join(dir, "programs", diyProject)
	key := func(name string) model.Key {
		return model.Key{Context: c.Context, Engine: model.EnginePulumi, Namespace: infraNS, Name: name}
	}
	programs.Lock()
	programs.byCluster[c] = map[model.Key]pulumirun.Target{key(stackPreview): t, key(stackLocked): n}
	programs.Unlock()
	sourceCaches.Lock()
	sourceCaches.byCluster[c] = sources
	sourceCaches.Unlock()
	return func() {
		programs.Lock()
		delete(programs.byCluster, c)
		programs.Unlock()
		sourceCaches.Lock()
		delete(sourceCaches.byCluster, c)
		sourceCaches.Unlock()
	}
}

// writeAnalytics lays out the analytics stack's state as its last apply
// left it, a few commits behind the program: against the program's head a
// preview updates events-bucket, replaces warehouse, creates ingest-queue
// and ingest-token, deletes legacy-export and keeps dashboards; a drift
// check finds its reference to network-prod's outputs changed.
func (b diyBackend) writeAnalytics(at time.Time) error {
	urn := func(typ, name string) string {
		return fmt.Sprintf("urn:pulumi:%s::%s::%s::%s", analyticsStack, analyticsProject, typ, name)
	}
	stackURN := urn("pulumi:pulumi:Stack", analyticsProject+"-"+analyticsStack)
	const providerID = "8b3e6f0a-2c4d-4e1f-9a7b-5d6c8e0f1a2b"
	provider := urn("pulumi:providers:pulumi", "default")
	stash := func(name string, input any, deps ...string) resourceV3 {
		return resourceV3{URN: urn("pulumi:index:Stash", name), Custom: true, ID: commit("stash", name)[:32], Type: "pulumi:index:Stash",
			Inputs: map[string]any{"input": input}, Outputs: map[string]any{"input": input, "output": input},
			Parent: stackURN, Dependencies: deps, Provider: provider + "::" + providerID}
	}
	events := stash("events-bucket", map[string]any{"name": "acme-analytics-events-prod", "retentionDays": 14, "versioning": true})
	// What analytics last read of network-prod's outputs: the VPC before
	// network was rebuilt by hand, so a drift check finds the reference
	// changed out of band.
	network := resourceV3{URN: urn("pulumi:pulumi:StackReference", networkRef), Custom: true, External: true, ID: networkRef,
		Type: "pulumi:pulumi:StackReference", Inputs: map[string]any{"name": networkRef},
		Outputs: map[string]any{"name": networkRef, "outputs": map[string]any{"vpcId": "vpc-04d7a3e9b1c2f8e60"}, "secretOutputNames": []any{}},
		Parent:  stackURN, Provider: provider + "::" + providerID}
	dep := deploymentV3{
		Manifest: manifest(at),
		Resources: []resourceV3{
			{URN: stackURN, Type: "pulumi:pulumi:Stack"},
			{URN: provider, Custom: true, ID: providerID, Type: "pulumi:providers:pulumi"},
			events,
			network,
			stash("warehouse", "clickhouse-23.8", events.URN),
			stash("legacy-export", map[string]any{"bucket": "acme-analytics-legacy-export", "schedule": "0 3 * * *"}, events.URN),
			stash("dashboards", map[string]any{"folder": "Analytics / Prod", "count": 12}),
		},
	}
	cp := checkpointV3{Stack: "organization/" + analyticsProject + "/" + analyticsStack, Latest: dep}
	data, err := json.MarshalIndent(versionedCheckpoint{Version: 3, Checkpoint: cp}, "", "    ")
	if err != nil {
		return err
	}
	p := filepath.Join(b.dir, ".pulumi", "stacks", analyticsProject, analyticsStack+".json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o600)
}
