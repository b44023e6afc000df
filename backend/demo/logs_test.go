package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/backend/model"
)

func demoLogService(t *testing.T) (context.Context, *logs.Service) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, err := Start(ctx, Options{Timings: Timings{LogEvery: 5 * time.Millisecond, DriftEvery: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(Cleanup)
	if LogOpener(c) == nil {
		t.Fatal("the demo cluster has no log source")
	}
	return ctx, &logs.Service{Cluster: func(string) (*kube.Cluster, bool) { return c, true }, Open: LogOpener(c)}
}

// streamUntil follows a log until a line holds want, and returns what came.
func streamUntil(t *testing.T, ctx context.Context, s *logs.Service, tg logs.Target, o logs.Options, want string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var b strings.Builder
	err := s.Stream(ctx, tg.Pod, o, func(l logs.Line) {
		b.WriteString(l.Text + "\n")
		if strings.Contains(l.Text, want) {
			cancel()
		}
	})
	if err != nil || !strings.Contains(b.String(), want) {
		t.Fatalf("%s: no line with %q (err %v):\n%s", tg.Pod, want, err, b.String())
	}
	return b.String()
}

func TestDemoLogsFollowTheRunningUpdateTheHungHookAndTheCrashingPod(t *testing.T) {
	ctx, s := demoLogService(t)
	ts, err := s.Targets(ctx, model.Key{Context: ContextName, Engine: model.EnginePulumi, Namespace: platformInfraNS, Name: stackRunning})
	if err != nil || len(ts) != 1 || ts[0].Container != "pulumi" {
		t.Fatalf("the running Stack's workspace pod: %+v, %v", ts, err)
	}
	got := streamUntil(t, ctx, s, ts[0], logs.Options{Container: ts[0].Container, Follow: true, Tail: -1}, "Duration: 19s")
	if !strings.Contains(got, "created (1s)") || strings.Index(got, "updating (0s)") > strings.Index(got, "created (1s)") {
		t.Errorf("the update's progress, in order:\n%s", got)
	}

	ts, err = s.Targets(ctx, model.Key{Context: ContextName, Engine: model.EngineArgoCD, Namespace: "argocd", Name: appStuck})
	if err != nil || len(ts) != 1 || ts[0].Pod.Name != hookPod || !strings.Contains(ts[0].Why, "Sync hook Job "+hookJob+" (Running)") {
		t.Fatalf("the stuck sync's hook pod: %+v, %v", ts, err)
	}
	streamUntil(t, ctx, s, ts[0], logs.Options{Container: ts[0].Container, Follow: true, Tail: 5}, "(attempt 43)")

	indexer := logs.Target{Pod: logs.PodRef{Context: ContextName, Namespace: ts[0].Pod.Namespace, Name: waitedPod}}
	got = streamUntil(t, ctx, s, indexer, logs.Options{Tail: -1}, "password set to "+logs.Masked)
	if strings.Contains(got, demoESPassword) {
		t.Errorf("the Secret's value is on screen:\n%s", got)
	}
	streamUntil(t, ctx, s, indexer, logs.Options{Previous: true, Tail: -1}, "OutOfMemoryError")
}
