package argoapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

// The list of 5,000 Applications of the bench (about 70 MB), gzipped as
// argocd-server sends it, decoded into the slim maps the model reads:
// what the API route spends on its first list once the bytes arrive.
func BenchmarkTheListOfFiveThousandApplications(b *testing.B) {
	now := time.Now()
	items := make([]map[string]any, 5000)
	for i := range items {
		items[i] = fleetgen.Application(i, now)
		// As an API server keeps it: the fields each writer set, which
		// are a third of an Application as argocd-server lists it.
		md := items[i]["metadata"].(map[string]any)
		md["managedFields"] = []any{
			map[string]any{"manager": "bench", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": fieldsOf(map[string]any{"spec": items[i]["spec"]})},
			map[string]any{"manager": "argocd-application-controller", "operation": "Update", "fieldsType": "FieldsV1", "fieldsV1": fieldsOf(map[string]any{"status": items[i]["status"]})},
		}
	}
	raw, err := json.Marshal(map[string]any{"metadata": map[string]any{"resourceVersion": "9"}, "items": items})
	if err != nil {
		b.Fatal(err)
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	c := serve(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(zipped.Bytes())
	})
	b.SetBytes(int64(len(raw)))
	b.ResetTimer()
	for range b.N {
		apps, err := applications(c, argocd.DecodeSlim)
		if err != nil || len(apps) != len(items) {
			b.Fatalf("%d Applications, %v", len(apps), err)
		}
	}
}

// fieldsOf is the FieldsV1 of the fields v sets, as the API server records
// them (list elements by their index, for brevity).
func fieldsOf(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, member := range v {
			out["f:"+k] = fieldsOf(member)
		}
		return out
	case []any:
		out := map[string]any{}
		for i, e := range v {
			out[fmt.Sprintf("i:%d", i)] = fieldsOf(e)
		}
		return out
	}
	return map[string]any{}
}
