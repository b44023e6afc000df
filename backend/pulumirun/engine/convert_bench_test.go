package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// thousandSteps builds a 1,000-resource preview stream from the recorded
// one: each resource's update and replacement events under a new name,
// then the summary.
func thousandSteps(b *testing.B) []apitype.EngineEvent {
	rec := recorded(b, "preview-update.jsonl")
	var body []apitype.EngineEvent
	var summary apitype.EngineEvent
	for _, e := range rec {
		switch {
		case e.ResourcePreEvent != nil && strings.Contains(e.ResourcePreEvent.Metadata.URN, "Stash"):
			body = append(body, e)
		case e.SummaryEvent != nil:
			summary = e
		}
	}
	var out []apitype.EngineEvent
	for i := 0; len(out) < 1000; i++ {
		for _, e := range body {
			cp := *e.ResourcePreEvent
			cp.Metadata.URN = fmt.Sprintf("%s-%d", cp.Metadata.URN, i)
			out = append(out, apitype.EngineEvent{ResourcePreEvent: &cp})
		}
	}
	return append(out[:1000], summary)
}

func BenchmarkConvertPreviewStream(b *testing.B) {
	evs := thousandSteps(b)
	b.Run("convert", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			c := newConverter(true, func(pulumirun.Event) { n++ })
			for _, e := range evs {
				c.handle(e)
			}
			if n != len(evs) {
				b.Fatalf("delivered %d of %d", n, len(evs))
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
	})
	// Through the channel the Automation API writes to and the pump that
	// hands each event to the caller, as a preview does.
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			c := newConverter(true, func(pulumirun.Event) { n++ })
			_, err := stream(b.Context(), c, func(ch chan events.EngineEvent) error {
				for _, e := range evs {
					ch <- events.EngineEvent{EngineEvent: e}
				}
				close(ch)
				return nil
			})
			if err != nil || n != len(evs) {
				b.Fatalf("delivered %d of %d: %v", n, len(evs), err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
	})
}
