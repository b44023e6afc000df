package demo

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The DIY-backed Stack's Pulumi project and stack.
const (
	diyProject = "network"
	diyStack   = "prod"
	deadLockID = "6f1c2a4e-8d3b-4c1e-9a57-2f0d8e4b91c3"
)

// diyBackend is the demo's file:// state backend, laid out as pulumi lays
// it out, holding the state of the network-prod Stack and the lock a killed
// `pulumi up` left behind (with a pending operation in the checkpoint).
// Breaking the lock (deleting the lock file) lets the Stack's next update
// run; until then every update fails on it, as with the real operator.
type diyBackend struct{ dir string }

// lockContent is pulumi's lock file format (pkg/backend/diy/lock.go).
type lockContent struct {
	Pid       int       `json:"pid"`
	Username  string    `json:"username"`
	Hostname  string    `json:"hostname"`
	Timestamp time.Time `json:"timestamp"`
}

func (b diyBackend) url() string { return "file://" + filepath.ToSlash(b.dir) }

func (b diyBackend) lockDir() string {
	return filepath.Join(b.dir, ".pulumi", "locks", "organization", diyProject, diyStack)
}

// write lays out the backend: meta.yaml, the checkpoint, the dead run's
// lock, and the state of the analytics stack the demo previews for real.
func (b diyBackend) write(now time.Time) error {
	started := now.Add(-2*time.Hour - 13*time.Minute).UTC()
	files := map[string][]byte{
		filepath.Join(".pulumi", "meta.yaml"): []byte("version: 1\n"),
	}
	lock, err := json.Marshal(lockContent{Pid: 48213, Username: "ci-runner", Hostname: "gha-runner-7f9c2", Timestamp: started})
	if err != nil {
		return err
	}
	files[filepath.Join(".pulumi", "locks", "organization", diyProject, diyStack, deadLockID+".json")] = lock
	cp, err := checkpoint(started)
	if err != nil {
		return err
	}
	files[filepath.Join(".pulumi", "stacks", diyProject, diyStack+".json")] = cp
	for rel, data := range files {
		p := filepath.Join(b.dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return err
		}
	}
	return b.writeAnalytics(started.Add(-26 * time.Hour))
}

// The checkpoint's JSON shapes: of each Pulumi sdk apitype type named on
// one, the fields the demo fills, with the same names in the same order
// (the sdk's common packages would bring grpc and otel into the binary).

// versionedCheckpoint is apitype.VersionedCheckpoint.
type versionedCheckpoint struct {
	Version    int          `json:"version"`
	Checkpoint checkpointV3 `json:"checkpoint"`
}

// checkpointV3 is apitype.CheckpointV3.
type checkpointV3 struct {
	Stack  string       `json:"stack"`
	Latest deploymentV3 `json:"latest"`
}

// deploymentV3 is apitype.DeploymentV3.
type deploymentV3 struct {
	Manifest          manifestV1    `json:"manifest"`
	Resources         []resourceV3  `json:"resources,omitempty"`
	PendingOperations []operationV2 `json:"pending_operations,omitempty"`
	Metadata          struct{}      `json:"metadata"` // the CLI writes {}
}

// manifestV1 is apitype.ManifestV1.
type manifestV1 struct {
	Time    time.Time `json:"time"`
	Magic   string    `json:"magic"`
	Version string    `json:"version"`
}

// resourceV3 is apitype.ResourceV3.
type resourceV3 struct {
	URN          string         `json:"urn"`
	Custom       bool           `json:"custom"`
	External     bool           `json:"external,omitempty"`
	ID           string         `json:"id,omitempty"`
	Type         string         `json:"type"`
	Inputs       map[string]any `json:"inputs,omitempty"`
	Outputs      map[string]any `json:"outputs,omitempty"`
	Parent       string         `json:"parent,omitempty"`
	Dependencies []string       `json:"dependencies,omitempty"`
	Provider     string         `json:"provider,omitempty"`
}

// operationV2 is apitype.OperationV2.
type operationV2 struct {
	Resource resourceV3 `json:"resource"`
	Type     string     `json:"type"`
}

// checkpoint is the stack's state as the dead run left it: the VPC, its
// subnets, one NAT gateway and the flow logs, and the second gateway it was
// creating when it was killed. The resources are the built-in Stash, as in
// the program the demo ships for it (backend/demo/program), so its preview
// runs for real with no provider.
func checkpoint(at time.Time) ([]byte, error) {
	urn := func(typ, name string) string {
		return fmt.Sprintf("urn:pulumi:%s::%s::%s::%s", diyStack, diyProject, typ, name)
	}
	stackURN := urn("pulumi:pulumi:Stack", diyProject+"-"+diyStack)
	const providerID = "2f8e1c3a-5b7d-4e9f-8a1c-0d2e4f6a8b9c"
	provider := urn("pulumi:providers:pulumi", "default")
	stash := func(name string, input map[string]any, deps ...string) resourceV3 {
		return resourceV3{URN: urn("pulumi:index:Stash", name), Custom: true, ID: commit("stash", diyProject, name)[:32], Type: "pulumi:index:Stash",
			Inputs: map[string]any{"input": input}, Outputs: map[string]any{"input": input, "output": input},
			Parent: stackURN, Dependencies: deps, Provider: provider + "::" + providerID}
	}
	vpc := stash("vpc", map[string]any{"cidrBlock": "10.40.0.0/16", "region": "eu-central-1"})
	subnetA := stash("subnet-a", map[string]any{"cidrBlock": "10.40.0.0/20", "zone": "eu-central-1a"}, vpc.URN)
	subnetB := stash("subnet-b", map[string]any{"cidrBlock": "10.40.16.0/20", "zone": "eu-central-1b"}, vpc.URN)
	egressB := stash("egress-b", map[string]any{"subnet": "subnet-b", "publicIp": "52.29.88.17"}, subnetB.URN)
	egressB.ID, egressB.Outputs = "", nil // being created: no id yet
	dep := deploymentV3{
		Manifest: manifest(at),
		Resources: []resourceV3{
			{URN: stackURN, Type: "pulumi:pulumi:Stack", Outputs: map[string]any{"vpcId": "vpc-0c81f2a9e4d5b6a71"}},
			{URN: provider, Custom: true, ID: providerID, Type: "pulumi:providers:pulumi"},
			vpc, subnetA, subnetB,
			stash("egress-a", map[string]any{"subnet": "subnet-a", "publicIp": "52.29.14.201"}, subnetA.URN),
			stash("flow-logs", map[string]any{"retentionDays": 7, "traffic": "REJECT"}, vpc.URN),
		},
		PendingOperations: []operationV2{{Type: "creating", Resource: egressB}},
	}
	cp := checkpointV3{Stack: "organization/" + diyProject + "/" + diyStack, Latest: dep}
	return json.MarshalIndent(versionedCheckpoint{Version: 3, Checkpoint: cp}, "", "    ")
}

// manifest's magic is what the CLI checks it by: the sha256 of the version.
func manifest(at time.Time) manifestV1 {
	m := manifestV1{Time: at, Version: "v3.274.1"}
	m.Magic = fmt.Sprintf("%x", sha256.Sum256([]byte(m.Version)))
	return m
}

// lockMessage is pulumi's error for the locks present now, "" when none.
func (b diyBackend) lockMessage() string {
	entries, err := os.ReadDir(b.lockDir())
	if err != nil {
		return ""
	}
	var locks []string
	for _, en := range entries {
		if !en.IsDir() && strings.HasSuffix(en.Name(), ".json") {
			locks = append(locks, en.Name())
		}
	}
	if len(locks) == 0 {
		return ""
	}
	sort.Strings(locks)
	var sb strings.Builder
	fmt.Fprintf(&sb, "the stack is currently locked by %d lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.", len(locks))
	for _, name := range locks {
		var l lockContent
		data, err := os.ReadFile(filepath.Join(b.lockDir(), name))
		if err == nil {
			err = json.Unmarshal(data, &l)
		}
		if err != nil {
			continue
		}
		rel := strings.Join([]string{".pulumi", "locks", "organization", diyProject, diyStack, name}, "/")
		fmt.Fprintf(&sb, "\n  %s/%s: created by %s@%s (pid %d) at %s", b.url(), rel, l.Username, l.Hostname, l.Pid, l.Timestamp.Format(time.RFC3339))
	}
	return sb.String()
}
