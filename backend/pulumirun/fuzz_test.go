package pulumirun

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The helper's reply stream is read by driftdeck from another process: any
// bytes on that pipe end the run with an error or an outcome, never a panic.
func FuzzReceive(f *testing.F) {
	for _, seed := range []string{
		`{"Event":{"Step":{"Op":"update","URN":"urn:pulumi:prod::p::pulumi:index:Stash::a"}}}` + "\n" + `{"Done":{"Result":{},"Error":""}}`,
		`{"Done":{"Canceled":true,"Error":"signal: killed"}}`,
		`{"Event":null}{"Done":{}}`, `{"Event":{}}`, `[`, "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			out, err := readReply(dec, func(Event) {})
			if err != nil {
				return
			}
			if out != nil {
				_ = out.Result.Summary.Text()
				return
			}
		}
	})
}
