package pulumistate

import "encoding/json"

// The JSON shapes of Pulumi state and of the Pulumi Cloud API that driftdeck
// reads, each the part of its github.com/pulumi/pulumi/sdk/v3 apitype
// counterpart (named on it) that the code uses, with the same JSON names.
// The sdk's common packages would bring grpc and otel into the binary.

// deploymentSchemaVersionLatest is apitype.DeploymentSchemaVersionLatest.
const deploymentSchemaVersionLatest = 4

// versionedCheckpoint is apitype.VersionedCheckpoint.
type versionedCheckpoint struct {
	Version    int             `json:"version"`
	Checkpoint json.RawMessage `json:"checkpoint"`
}

// operation is apitype.OperationV2.
type operation struct {
	Resource struct {
		URN string `json:"urn"`
	} `json:"resource"`
	Type string `json:"type"`
}

// errorResponse is apitype.ErrorResponse.
type errorResponse struct {
	Message string `json:"message"`
}

// listStacksResponse is apitype.ListStacksResponse.
type listStacksResponse struct {
	Stacks            []stackSummary `json:"stacks"`
	ContinuationToken *string        `json:"continuationToken,omitempty"`
}

// stackSummary is apitype.StackSummary.
type stackSummary struct {
	OrgName       string `json:"orgName"`
	ProjectName   string `json:"projectName"`
	StackName     string `json:"stackName"`
	LastUpdate    *int64 `json:"lastUpdate,omitempty"`
	ResourceCount *int   `json:"resourceCount,omitempty"`
}

// cloudStack is apitype.Stack.
type cloudStack struct {
	CurrentOperation *operationStatus `json:"currentOperation,omitempty"`
	ActiveUpdate     string           `json:"activeUpdate"`
}

// operationStatus is apitype.OperationStatus.
type operationStatus struct {
	Kind    string `json:"kind"`
	Author  string `json:"author"`
	Started int64  `json:"started"`
}

// getHistoryResponse is apitype.GetHistoryResponse.
type getHistoryResponse struct {
	Updates []updateInfo `json:"updates"`
}

// updateInfo is apitype.UpdateInfo.
type updateInfo struct {
	Kind            string         `json:"kind"`
	StartTime       int64          `json:"startTime"`
	Message         string         `json:"message"`
	Result          string         `json:"result"`
	EndTime         int64          `json:"endTime"`
	Version         int            `json:"version"`
	ResourceChanges map[string]int `json:"resourceChanges,omitempty"`
}

// untypedDeployment is apitype.UntypedDeployment, all of it: an export is
// imported again with only pending_operations cut from Deployment.
type untypedDeployment struct {
	Version    int             `json:"version,omitempty"`
	Features   []string        `json:"features,omitempty"`
	Deployment json.RawMessage `json:"deployment,omitempty"`
}

// importStackResponse is apitype.ImportStackResponse.
type importStackResponse struct {
	UpdateID string `json:"updateId"`
}
