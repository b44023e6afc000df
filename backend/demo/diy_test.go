package demo

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// The demo's checkpoint is one the sdk reads whole: re-encoding what it
// read gives the same bytes, and the manifest's magic is the one it checks.
func TestCheckpointIsTheSDKs(t *testing.T) {
	written, err := checkpoint(time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var vc apitype.VersionedCheckpoint
	if err := json.Unmarshal(written, &vc); err != nil {
		t.Fatal(err)
	}
	var cp apitype.CheckpointV3
	if err := json.Unmarshal(vc.Checkpoint, &cp); err != nil {
		t.Fatal(err)
	}
	if cp.Latest == nil || cp.Latest.Manifest.Magic != cp.Latest.Manifest.NewMagic() || len(cp.Latest.Resources) != 7 ||
		len(cp.Latest.PendingOperations) != 1 || cp.Latest.PendingOperations[0].Type != apitype.OperationTypeCreating {
		t.Fatalf("the sdk reads %+v", cp.Latest)
	}
	if vc.Checkpoint, err = json.Marshal(cp); err != nil {
		t.Fatal(err)
	}
	again, err := json.MarshalIndent(vc, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, written) {
		t.Errorf("the sdk writes\n%s\nthe demo wrote\n%s", again, written)
	}
}
