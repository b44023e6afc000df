package pulumistate

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// The shapes of wire.go must read what the sdk's apitype writes.

// decodeAs encodes v with encoding/json and decodes the result as a T.
func decodeAs[T any](t *testing.T, v any) T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCheckpointReadsTheSDKsCheckpoint(t *testing.T) {
	if deploymentSchemaVersionLatest != apitype.DeploymentSchemaVersionLatest {
		t.Errorf("latest schema version %d; the sdk's is %d", deploymentSchemaVersionLatest, apitype.DeploymentSchemaVersionLatest)
	}
	nat := apitype.ResourceV3{URN: "urn:pulumi:prod::net::aws:ec2/natGateway:NatGateway::egress", Custom: true, Type: "aws:ec2/natGateway:NatGateway"}
	cp, err := json.Marshal(apitype.CheckpointV3{Stack: "organization/net/prod", Latest: &apitype.DeploymentV3{
		Manifest:  apitype.ManifestV1{Version: "v3.274.1"},
		Resources: []apitype.ResourceV3{{URN: "urn:pulumi:prod::net::pulumi:pulumi:Stack::net-prod", Type: "pulumi:pulumi:Stack"}},
		PendingOperations: []apitype.OperationV2{
			{Type: apitype.OperationTypeCreating, Resource: nat},
			{Type: apitype.OperationTypeDeleting, Resource: apitype.ResourceV3{URN: "urn:pulumi:prod::net::aws:ec2/eip:Eip::old"}},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := json.Marshal(apitype.VersionedCheckpoint{Version: apitype.DeploymentSchemaVersionLatest, Features: []string{"refreshBeforeUpdate"}, Checkpoint: cp})
	if err != nil {
		t.Fatal(err)
	}
	dep, err := readCheckpoint(stored)
	if err != nil {
		t.Fatal(err)
	}
	want := []PendingOperation{{Type: "creating", URN: string(nat.URN)}, {Type: "deleting", URN: "urn:pulumi:prod::net::aws:ec2/eip:Eip::old"}}
	if got := pendingOps(dep); len(dep.Resources) != 1 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d resources, pending %+v; want 1 and %+v", len(dep.Resources), got, want)
	}
}

func TestCloudShapesReadTheSDKs(t *testing.T) {
	lastUpdate, count, next := int64(1795970000), 2, "page2"
	stacks := decodeAs[listStacksResponse](t, apitype.ListStacksResponse{
		Stacks: []apitype.StackSummary{{ID: "id", OrgName: "acme", ProjectName: "web", StackName: "prod",
			LastUpdate: &lastUpdate, ResourceCount: &count}},
		ContinuationToken: &next,
	})
	if want := (listStacksResponse{Stacks: []stackSummary{{OrgName: "acme", ProjectName: "web", StackName: "prod",
		LastUpdate: &lastUpdate, ResourceCount: &count}}, ContinuationToken: &next}); !reflect.DeepEqual(stacks, want) {
		t.Errorf("stacks = %+v; want %+v", stacks, want)
	}

	st := decodeAs[cloudStack](t, apitype.Stack{OrgName: "acme", ProjectName: "web", StackName: "prod", ActiveUpdate: "upd-42",
		CurrentOperation: &apitype.OperationStatus{Kind: apitype.UpdateUpdate, Author: "alice", Started: 1795970100}})
	if want := (cloudStack{ActiveUpdate: "upd-42", CurrentOperation: &operationStatus{Kind: "update", Author: "alice", Started: 1795970100}}); !reflect.DeepEqual(st, want) {
		t.Errorf("stack = %+v; want %+v", st, want)
	}

	hist := decodeAs[getHistoryResponse](t, apitype.GetHistoryResponse{Updates: []apitype.UpdateInfo{{
		Kind: apitype.RefreshUpdate, StartTime: 100, Message: "nightly", Result: apitype.FailedResult, EndTime: 160, Version: 7,
		ResourceChanges: map[apitype.OpType]int{apitype.OpCreate: 1, apitype.OpSame: 4},
	}}})
	if want := (getHistoryResponse{Updates: []updateInfo{{Kind: "refresh", StartTime: 100, Message: "nightly", Result: "failed",
		EndTime: 160, Version: 7, ResourceChanges: map[string]int{"create": 1, "same": 4}}}}); !reflect.DeepEqual(hist, want) {
		t.Errorf("history = %+v; want %+v", hist, want)
	}

	if e := decodeAs[errorResponse](t, apitype.ErrorResponse{Code: 404, Message: "Not Found: Stack not found"}); e.Message != "Not Found: Stack not found" {
		t.Errorf("error message = %q", e.Message)
	}
	if r := decodeAs[importStackResponse](t, apitype.ImportStackResponse{UpdateID: "upd-43"}); r.UpdateID != "upd-43" {
		t.Errorf("import update id = %q", r.UpdateID)
	}
}

// An export comes back to the service as the sdk would send it.
func TestUntypedDeploymentRoundTripsTheSDKs(t *testing.T) {
	sdk := apitype.UntypedDeployment{Version: 4, Features: []string{"refreshBeforeUpdate"},
		Deployment: json.RawMessage(`{"manifest":{"time":"2026-11-01T10:00:00Z","magic":"m","version":"v3.274.1"},"resources":[],"metadata":{}}`)}
	sent, err := json.Marshal(sdk)
	if err != nil {
		t.Fatal(err)
	}
	ours := decodeAs[untypedDeployment](t, sdk)
	resent, err := json.Marshal(ours)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(resent, sent) {
		t.Errorf("re-sent %s; the sdk sends %s", resent, sent)
	}
	if back := decodeAs[apitype.UntypedDeployment](t, ours); !reflect.DeepEqual(back, sdk) {
		t.Errorf("the sdk reads %+v back; want %+v", back, sdk)
	}
}
