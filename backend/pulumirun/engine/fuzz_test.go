package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// The pulumi CLI's engine events, as decoded from its event log, through the
// converter: a malformed or hostile stream (missing metadata, unknown ops,
// odd diffs) yields steps or nothing, never a panic.
func FuzzConvertEngineEvents(f *testing.F) {
	for _, name := range []string{"preview-update.jsonl", "apply-update.jsonl", "detailed-diff.jsonl"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, true)
		f.Add(b, false)
	}
	f.Add([]byte(`{"resourcePreEvent":{"metadata":{"op":"same"}}}`+"\n"+`{"resOutputsEvent":{}}`), true)
	f.Add([]byte(`{"diagnosticEvent":{"severity":"error","message":"\u001b]52;c;aGk=\u0007"}}`), false)
	f.Fuzz(func(t *testing.T, data []byte, preview bool) {
		c := newConverter(preview, func(pulumirun.Event) {})
		for _, line := range bytes.Split(data, []byte("\n")) {
			var e apitype.EngineEvent
			if json.Unmarshal(line, &e) == nil {
				c.handle(e)
			}
		}
		_ = c.stepsSoFar()
		_ = c.applied()
	})
}
