package pulumiop_test

import (
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetunits"
)

// BenchmarkConvert is the adapter's cost per Stack (operator v2 status), on
// objects as the dynamic client delivers them, across the state mix.
func BenchmarkConvert(b *testing.B) {
	objs := make([]map[string]any, 0, 100)
	for i := range 100 {
		stack, status, _, _ := fleetgen.Stack(i, time.Now())
		stack["status"] = status["status"]
		obj, err := fleetunits.Decoded(stack)
		if err != nil {
			b.Fatal(err)
		}
		objs = append(objs, obj)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if u := pulumiop.Convert("bench", objs[i%len(objs)]); u.Stack == nil {
			b.Fatal("no stack facts")
		}
		i++
	}
}

// BenchmarkConvertUpdate is the cost per auto.pulumi.com Update.
func BenchmarkConvertUpdate(b *testing.B) {
	objs := make([]map[string]any, 0, 100)
	for i := range 100 {
		_, _, update, status := fleetgen.Stack(i, time.Now())
		update["status"] = status["status"]
		obj, err := fleetunits.Decoded(update)
		if err != nil {
			b.Fatal(err)
		}
		objs = append(objs, obj)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if u := pulumiop.ConvertUpdate("bench", objs[i%len(objs)]); u.Stack == "" {
			b.Fatal("no stack label")
		}
		i++
	}
}
