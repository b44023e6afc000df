package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/demo/inmem"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// Test timings: a sync or update runs for this long.
const step = 40 * time.Millisecond

// fakeAPI is the in-process API the demo uses: fast, and it keeps the
// apiserver's write semantics (resourceVersions, atomic patches, status
// subresources) that the controllers rely on.
func fakeAPI() dynamic.Interface {
	return inmem.New(
		inmem.Resource{GVR: argocd.Applications, Kind: "Application", Namespaced: true},
		inmem.Resource{GVR: argocd.AppProjects, Kind: "AppProject", Namespaced: true},
		inmem.Resource{GVR: pulumiop.Stacks, Kind: "Stack", Namespaced: true, Status: true},
		inmem.Resource{GVR: pulumiop.Updates, Kind: "Update", Namespaced: true, Status: true},
	).Dynamic()
}

func create(t testing.TB, dyn dynamic.Interface, gvr schema.GroupVersionResource, obj map[string]any) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: obj}
	out, err := dyn.Resource(gvr).Namespace(u.GetNamespace()).Create(context.Background(), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s %s: %v", gvr.Resource, u.GetName(), err)
	}
	return out
}

// patchStatus writes status the way a test stands in for history: through the
// status subresource when there is one.
func patchStatus(t testing.TB, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string, status map[string]any, subresource ...string) {
	t.Helper()
	patch(t, dyn, gvr, ns, name, types.MergePatchType, map[string]any{"status": status}, subresource...)
}

func patch(t testing.TB, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string, pt types.PatchType, body any, subresource ...string) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(gvr).Namespace(ns).Patch(context.Background(), name, pt, b, metav1.PatchOptions{}, subresource...); err != nil {
		t.Fatalf("patching %s %s: %v", gvr.Resource, name, err)
	}
}

func get(t testing.TB, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string) *objread.Reader {
	t.Helper()
	u, err := dyn.Resource(gvr).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("getting %s %s: %v", gvr.Resource, name, err)
	}
	return objread.New(u.Object)
}

// eventually polls cond until it holds or the timeout passes; cond returns
// what it saw, for the failure message.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		ok, seen := cond()
		if ok {
			return
		}
		last = seen
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s; last seen: %s", what, timeout, last)
}

// never checks that cond stays false for the whole duration.
func never(t testing.TB, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if ok, seen := cond(); ok {
			t.Fatalf("%s: happened: %s", what, seen)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func run(t testing.TB, start func(context.Context) error, ready <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = start(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("controller did not become ready")
	}
}

func sha(n int) string { return fmt.Sprintf("%040x", n) }
