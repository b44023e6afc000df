package pulumistate

import (
	"bytes"
	"encoding/json"
	"testing"
)

const checkpointSeed = `{"version":3,"checkpoint":{"stack":"organization/net/prod","latest":{"manifest":{},"resources":[{"urn":"urn:pulumi:prod::net::pulumi:pulumi:Stack::net-prod"}],"pending_operations":[{"resource":{"urn":"urn:pulumi:prod::net::aws:ec2/vpc:Vpc::main"},"type":"creating"}]}}}`

// A stack file in a state bucket is written by whoever can write the
// bucket: any bytes read back as a checkpoint or an error, never a panic.
func FuzzReadCheckpoint(f *testing.F) {
	for _, seed := range [][]byte{[]byte(checkpointSeed), gz([]byte(checkpointSeed)), []byte(`{"version":99}`),
		[]byte(`{"version":3,"checkpoint":{"latest":null}}`), {0x1f, 0x8b, 0, 0}, {0x28, 0xb5, 0x2f, 0xfd, 1}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := readCheckpoint(data)
		if err == nil {
			_ = pendingOps(d)
		}
	})
}

// Clearing pending operations cuts one member out of the stack file: on
// valid JSON the result is valid JSON without that member.
func FuzzWithoutMember(f *testing.F) {
	for _, seed := range []string{checkpointSeed, `{"p":1}`, `{"a":{"p":[1,{"p":2}]},"p":"x"}`, `{"p":1,"p":2}`, `{}`, `[]`, `{"a":"\"p\":1"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		out, found, err := withoutMember(doc, "p")
		if err != nil || !found || !json.Valid(doc) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("withoutMember(%q) = %q, not JSON", doc, out)
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(out, &m) == nil && bytes.Count(doc, []byte(`"p"`)) == 1 {
			if _, still := m["p"]; still {
				t.Fatalf("withoutMember(%q) = %q still holds p", doc, out)
			}
		}
	})
}
