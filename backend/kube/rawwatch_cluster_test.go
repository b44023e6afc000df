package kube

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/driftdeck/driftdeck/backend/testcluster"
)

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch ended")
		}
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no event within 20s")
	}
	return watch.Event{}
}

func TestClusterRawWatchStreamsInitialEventsThenChanges(t *testing.T) {
	tc := testcluster.Shared(t)
	c, err := NewCluster("test", tc.Config(), "default")
	if err != nil {
		t.Fatal(err)
	}
	ns := tc.Namespace(t)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"n": fmt.Sprint(i)}}
		if _, err := c.Kube.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w, err := rawWatch(ctx, c.REST, configMaps, ns, metav1.ListOptions{
		SendInitialEvents: ptr.To(true), AllowWatchBookmarks: true,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for i := 0; i < 3; i++ {
		ev := next(t, w)
		u, ok := ev.Object.(*unstructured.Unstructured)
		if ev.Type != watch.Added || !ok || u.GetName() != fmt.Sprintf("cm-%d", i) {
			t.Fatalf("initial event %d: %s %#v", i, ev.Type, ev.Object)
		}
		if v, _, _ := unstructured.NestedString(u.Object, "data", "n"); v != fmt.Sprint(i) {
			t.Fatalf("object content lost: %v", u.Object)
		}
	}
	ev := next(t, w)
	if u, _ := ev.Object.(*unstructured.Unstructured); ev.Type != watch.Bookmark || u.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
		t.Fatalf("want the bookmark that ends the initial events, got %s %#v", ev.Type, ev.Object)
	}
	if err := c.Kube.CoreV1().ConfigMaps(ns).Delete(ctx, "cm-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, w); ev.Type != watch.Deleted {
		t.Fatalf("want a deletion, got %s", ev.Type)
	}

}
