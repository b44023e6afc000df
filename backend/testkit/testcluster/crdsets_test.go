package testcluster

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fatalRecorder is a testing.TB whose Fatal ends only the calling goroutine
// and keeps the message.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatal(args ...any) {
	r.msg = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestRequireUpstreamCRDSetsServingFailsWhenNoneServesTheKind(t *testing.T) {
	t.Setenv(EnvSharedCRDs, t.TempDir())
	rec := &fatalRecorder{TB: t}
	done := make(chan []CRDSet)
	go func() {
		defer close(done)
		done <- RequireUpstreamCRDSetsServing(rec, schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "ApplicationSet"})
	}()
	if sets := <-done; sets != nil || !strings.Contains(rec.msg, "serves argoproj.io/v1alpha1, Kind=ApplicationSet") {
		t.Fatalf("want a failure naming the kind, got sets %v, message %q", sets, rec.msg)
	}
}
