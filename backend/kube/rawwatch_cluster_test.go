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

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
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

func TestClusterRawListThenWatchFromItsVersion(t *testing.T) {
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
	st := &feedStore[string]{feed: Feed[string]{Convert: func(obj map[string]any) string {
		v, _, _ := unstructured.NestedString(obj, "data", "n")
		return v
	}}}
	read := func(raw []byte) (*item[string], error) {
		obj, err := decodeObject(raw, nil)
		if err != nil {
			return nil, err
		}
		return st.toItem(&unstructured.Unstructured{Object: obj})
	}
	// As the reflector lists first: from the watch cache, which may not hold
	// the last create yet (resourceVersion "0" allows any state), so until it
	// shows all three.
	var list *itemList[string]
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var err error
		if list, err = rawList(ctx, c.REST, configMaps, ns, metav1.ListOptions{ResourceVersion: "0"}, read); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) == 3 || time.Now().After(deadline) {
			break
		}
	}
	if len(list.Items) != 3 || list.ResourceVersion == "" {
		t.Fatalf("listed %d items at version %q", len(list.Items), list.ResourceVersion)
	}
	for i, it := range list.Items {
		if it.Name != fmt.Sprintf("cm-%d", i) || it.value != fmt.Sprint(i) || it.ResourceVersion == "" {
			t.Fatalf("item %d: %s %q rv %q", i, it.Name, it.value, it.ResourceVersion)
		}
	}
	if _, err := rawList(ctx, c.REST, schema.GroupVersionResource{Group: "nothing.example", Version: "v1", Resource: "things"}, ns, metav1.ListOptions{}, read); err == nil {
		t.Fatal("listing a resource the server does not serve must fail")
	}

	w, err := rawWatch(ctx, c.REST, configMaps, ns, metav1.ListOptions{ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := c.Kube.CoreV1().ConfigMaps(ns).Delete(ctx, "cm-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		ev := next(t, w)
		if ev.Type == watch.Bookmark {
			continue
		}
		u, _ := ev.Object.(*unstructured.Unstructured)
		if ev.Type != watch.Deleted || u == nil || u.GetName() != "cm-1" {
			t.Fatalf("want the deletion of cm-1 and nothing listed again, got %s %#v", ev.Type, ev.Object)
		}
		return
	}
}
