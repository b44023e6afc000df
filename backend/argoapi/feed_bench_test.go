package argoapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
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
		apps, err := c.Applications(b.Context(), argocd.DecodeSlim)
		if err != nil || len(apps) != len(items) {
			b.Fatalf("%d Applications, %v", len(apps), err)
		}
	}
}
