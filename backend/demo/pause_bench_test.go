package demo_test

import (
	"context"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/model"
)

// BenchmarkDemoPauseRoundTrip measures a pause in the demo from request to
// done, as the TUI and `driftdeck pause --demo` send it (target: well under
// a second), and the time until the list shows the unit paused. Each round
// resumes the app again, outside the timing.
func BenchmarkDemoPauseRoundTrip(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := demo.Start(ctx, demo.Options{Timings: demo.Timings{DriftEvery: -1}})
	if err != nil {
		b.Fatal(err)
	}
	f := fleet.New(fleet.Options{})
	if err := f.Add(ctx, c, ""); err != nil {
		b.Fatal(err)
	}
	if err := f.WaitSynced(ctx); err != nil {
		b.Fatal(err)
	}
	exec := &actions.Executor{Cluster: f.Cluster}
	k := model.Key{Context: demo.ContextName, Engine: model.EngineArgoCD, Namespace: "argocd", Name: "cart"}
	var listed time.Duration
	for b.Loop() {
		began := time.Now()
		if _, err := exec.Execute(ctx, actions.Request{Kind: actions.Pause, Key: k, Reason: "INC-5150 hotfix on cart", Until: time.Now().Add(2 * time.Hour)}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		for u, _ := f.Store.Get(k); u == nil || u.Automation != model.Paused; u, _ = f.Store.Get(k) {
			time.Sleep(time.Millisecond)
		}
		listed += time.Since(began)
		if _, err := exec.Execute(ctx, actions.Request{Kind: actions.Resume, Key: k, Reason: "fixed"}); err != nil {
			b.Fatal(err)
		}
		for u, _ := f.Store.Get(k); u == nil || u.Automation == model.Paused; u, _ = f.Store.Get(k) {
			time.Sleep(time.Millisecond)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(listed.Microseconds())/1000/float64(b.N), "ms-to-list/op")
}
