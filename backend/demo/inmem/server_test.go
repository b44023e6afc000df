package inmem

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

var (
	apps   = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	stacks = schema.GroupVersionResource{Group: "pulumi.com", Version: "v1", Resource: "stacks"}
	events = schema.GroupVersionResource{Version: "v1", Resource: "events"}
)

func newServer() *Server {
	return New(
		Resource{GVR: apps, Kind: "Application", Namespaced: true},
		Resource{GVR: stacks, Kind: "Stack", Namespaced: true, Status: true},
		Resource{GVR: events, Kind: "Event", Namespaced: true},
	)
}

func obj(kind, ns, name string, fields map[string]any) *unstructured.Unstructured {
	o := map[string]any{"metadata": map[string]any{"namespace": ns, "name": name}}
	for k, v := range fields {
		o[k] = v
	}
	return &unstructured.Unstructured{Object: o}
}

func TestPatchWithStaleResourceVersionConflicts(t *testing.T) {
	s := newServer()
	dc := s.Dynamic()
	ctx := context.Background()
	created, err := dc.Resource(apps).Namespace("argocd").Create(ctx, obj("Application", "argocd", "a", map[string]any{"spec": map[string]any{"project": "default"}}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv := created.GetResourceVersion()
	if rv == "" {
		t.Fatal("create returned no resourceVersion")
	}
	first := fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"project":"p1"}}`, rv)
	after, err := dc.Resource(apps).Namespace("argocd").Patch(ctx, "a", types.MergePatchType, []byte(first), metav1.PatchOptions{})
	if err != nil {
		t.Fatalf("patch with the current resourceVersion: %v", err)
	}
	if after.GetResourceVersion() == rv {
		t.Fatal("a write kept the old resourceVersion")
	}
	if after.GetGeneration() != 2 {
		t.Fatalf("generation = %d after a spec change, want 2", after.GetGeneration())
	}
	_, err = dc.Resource(apps).Namespace("argocd").Patch(ctx, "a", types.MergePatchType, []byte(first), metav1.PatchOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("patch with a stale resourceVersion: err = %v, want Conflict", err)
	}
}

func TestFailedJSONPatchTestAnswers422AndWritesNothing(t *testing.T) {
	s := newServer()
	dc := s.Dynamic()
	ctx := context.Background()
	if _, err := dc.Resource(apps).Namespace("argocd").Create(ctx, obj("Application", "argocd", "a", map[string]any{"status": map[string]any{"operationState": map[string]any{"phase": "Succeeded"}}}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	body := `[{"op":"test","path":"/status/operationState/phase","value":"Running"},{"op":"replace","path":"/status/operationState/phase","value":"Terminating"}]`
	_, err := dc.Resource(apps).Namespace("argocd").Patch(ctx, "a", types.JSONPatchType, []byte(body), metav1.PatchOptions{})
	if st, ok := err.(apierrors.APIStatus); !ok || st.Status().Code != http.StatusUnprocessableEntity {
		t.Fatalf("err = %v, want 422", err)
	}
	got, _ := s.Get(apps, "argocd", "a")
	if p, _, _ := unstructured.NestedString(got.Object, "status", "operationState", "phase"); p != "Succeeded" {
		t.Fatalf("phase = %q after a failed test op", p)
	}
}

// Concurrent merge patches of different fields must all land: the stock fake
// tracker loses some of them (it reads, patches and stores in separate steps).
func TestConcurrentMergePatchesAllLand(t *testing.T) {
	s := newServer()
	dc := s.Dynamic()
	ctx := context.Background()
	if _, err := dc.Resource(apps).Namespace("argocd").Create(ctx, obj("Application", "argocd", "a", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := fmt.Sprintf(`{"metadata":{"annotations":{"k%d":"v"}}}`, i)
			if _, err := dc.Resource(apps).Namespace("argocd").Patch(ctx, "a", types.MergePatchType, []byte(p), metav1.PatchOptions{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, _ := s.Get(apps, "argocd", "a")
	if n := len(got.GetAnnotations()); n != 40 {
		t.Fatalf("%d of 40 concurrent patches landed", n)
	}
}

func TestStatusSubresourceSplitsWrites(t *testing.T) {
	s := newServer()
	dc := s.Dynamic()
	ctx := context.Background()
	st := obj("Stack", "infra", "net", map[string]any{"spec": map[string]any{"stack": "org/net/prod"}, "status": map[string]any{"x": "dropped"}})
	created, err := dc.Resource(stacks).Namespace("infra").Create(ctx, st, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := created.Object["status"]; ok {
		t.Fatal("create kept status although status is a subresource")
	}
	if _, err := dc.Resource(stacks).Namespace("infra").Patch(ctx, "net", types.MergePatchType, []byte(`{"status":{"observedGeneration":1},"spec":{"stack":"org/net/dev"}}`), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Get(stacks, "infra", "net")
	if g, _, _ := unstructured.NestedInt64(got.Object, "status", "observedGeneration"); g != 1 {
		t.Fatalf("status write lost: %v", got.Object["status"])
	}
	if v, _, _ := unstructured.NestedString(got.Object, "spec", "stack"); v != "org/net/prod" {
		t.Fatalf("a status write changed spec to %q", v)
	}
	if got.GetGeneration() != 1 {
		t.Fatalf("a status write bumped generation to %d", got.GetGeneration())
	}
	if _, err := dc.Resource(stacks).Namespace("infra").Patch(ctx, "net", types.MergePatchType, []byte(`{"status":{"observedGeneration":9},"spec":{"stack":"org/net/dev"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Get(stacks, "infra", "net")
	if g, _, _ := unstructured.NestedInt64(got.Object, "status", "observedGeneration"); g != 1 {
		t.Fatalf("a main-resource write changed status: %v", got.Object["status"])
	}
	if got.GetGeneration() != 2 {
		t.Fatalf("generation = %d after a spec change, want 2", got.GetGeneration())
	}
	if _, err := dc.Resource(apps).Namespace("argocd").Create(ctx, obj("Application", "argocd", "a", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = dc.Resource(apps).Namespace("argocd").Patch(ctx, "a", types.MergePatchType, []byte(`{"status":{}}`), metav1.PatchOptions{}, "status")
	if !apierrors.IsNotFound(err) {
		t.Fatalf("status patch on a resource without the subresource: err = %v, want NotFound", err)
	}
}

func TestDryRunStoresNothing(t *testing.T) {
	s := newServer()
	dc := s.Dynamic()
	ctx := context.Background()
	created, err := dc.Resource(apps).Namespace("argocd").Create(ctx, obj("Application", "argocd", "a", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := dc.Resource(apps).Namespace("argocd").Patch(ctx, "a", types.MergePatchType, []byte(`{"spec":{"project":"x"}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(out.Object, "spec", "project"); v != "x" {
		t.Fatalf("dry run did not return the would-be object")
	}
	got, _ := s.Get(apps, "argocd", "a")
	if got.GetResourceVersion() != created.GetResourceVersion() || got.Object["spec"] != nil {
		t.Fatalf("dry run was stored: %v", got.Object)
	}
}

// An informer over the fake dynamic client sees every write in order, and a
// watch resumed from an old resourceVersion replays what happened since.
func TestInformerAndWatchResume(t *testing.T) {
	s := newServer()
	dc := s.Dynamic()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inf := dynamicinformer.NewFilteredDynamicInformer(dc, apps, "", 0, cache.Indexers{}, nil).Informer()
	seen := make(chan string, 1000)
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, n any) { seen <- n.(*unstructured.Unstructured).GetAnnotations()["n"] },
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := dc.Resource(apps).Namespace("argocd").Create(ctx, obj("Application", "argocd", "a", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	list, _ := s.List(apps, "", nil, nil)
	mark := list.GetResourceVersion()
	// More events than the stock fake watcher's buffer of 100 holds.
	for i := range 300 {
		p := fmt.Sprintf(`{"metadata":{"annotations":{"n":"%d"}}}`, i)
		if _, err := dc.Resource(apps).Namespace("argocd").Patch(ctx, "a", types.MergePatchType, []byte(p), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		select {
		case got := <-seen:
			if got != fmt.Sprint(i) {
				t.Fatalf("update %d seen as %s", i, got)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("update %d never seen", i)
		}
	}
	w, err := s.Watch(apps, WatchOptions{ResourceVersion: mark})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	n := 0
	for ev := range w.ResultChan() {
		if ev.Type != watch.Modified {
			t.Fatalf("replayed %s", ev.Type)
		}
		if n++; n == 300 {
			break
		}
	}
}

func TestWatchFromCompactedVersionIsGone(t *testing.T) {
	s := newServer()
	for i := range historySize + 10 {
		if err := s.Seed(apps, obj("Application", "argocd", fmt.Sprint("a", i), nil)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Watch(apps, WatchOptions{ResourceVersion: "3"})
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("err = %v, want 410 Gone", err)
	}
}

func TestTypedEventsWithGenerateNameAndFieldSelector(t *testing.T) {
	s := newServer()
	kc := s.Kube()
	ctx := context.Background()
	for _, name := range []string{"a", "a", "b"} {
		ev := &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{GenerateName: name + ".driftdeck-"},
			InvolvedObject: corev1.ObjectReference{Kind: "Application", Namespace: "argocd", Name: name},
			Reason:         "Sync",
		}
		if _, err := kc.CoreV1().Events("argocd").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := kc.CoreV1().Events("argocd").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 || list.Items[0].Name == list.Items[1].Name {
		t.Fatalf("events of a: %d, names %v", len(list.Items), list.Items)
	}
}
