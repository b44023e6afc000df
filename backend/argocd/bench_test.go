package argocd_test

import (
	"encoding/json"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetunits"
)

// benchApps are 100 generated Applications of about 14 KB, across the state
// mix, as JSON.
func benchApps(b *testing.B) [][]byte {
	b.Helper()
	now := time.Now()
	out := make([][]byte, 100)
	for i := range out {
		raw, err := json.Marshal(fleetgen.Application(i, now))
		if err != nil {
			b.Fatal(err)
		}
		out[i] = raw
	}
	return out
}

// BenchmarkConvert is the adapter's cost per Application, on objects as the
// dynamic client delivers them.
func BenchmarkConvert(b *testing.B) {
	objs := make([]map[string]any, 0, 100)
	for i := range 100 {
		obj, err := fleetunits.Decoded(fleetgen.Application(i, time.Now()))
		if err != nil {
			b.Fatal(err)
		}
		objs = append(objs, obj)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if u := argocd.Convert("bench", objs[i%len(objs)]); u.Key.Name == "" {
			b.Fatal("no name")
		}
		i++
	}
}

// BenchmarkDecode is what every Application costs before the adapter sees
// it: the dynamic client decoding its JSON into maps. Compare with
// BenchmarkConvert to see where start-up time goes.
func BenchmarkDecode(b *testing.B) {
	raws := benchApps(b)
	total := 0
	for _, r := range raws {
		total += len(r)
	}
	b.SetBytes(int64(total / len(raws)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raws[i%len(raws)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkDecodeWatched compares what the watch does per Application: the
// whole object into maps with encoding/json, against the slim decoder that
// keeps only what the adapter reads.
func BenchmarkDecodeWatched(b *testing.B) {
	raws := benchApps(b)
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			var obj map[string]any
			if err := json.Unmarshal(raws[i%len(raws)], &obj); err != nil {
				b.Fatal(err)
			}
			argocd.Convert("bench", obj)
			i++
		}
	})
	b.Run("slim", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			obj, err := argocd.DecodeSlim(raws[i%len(raws)])
			if err != nil {
				b.Fatal(err)
			}
			argocd.Convert("bench", obj)
			i++
		}
	})
}
