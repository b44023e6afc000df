package testcluster

import (
	"context"
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// Create makes the object text (JSON) in ns, its status included: where
// status is a subresource (the apiserver dropped it on create, or kept only
// its defaults), it is written through /status.
func Create(t testing.TB, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, text string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(text), &u.Object); err != nil {
		t.Fatal(err)
	}
	status, hasStatus := u.Object["status"]
	ri := dyn.Resource(gvr).Namespace(ns)
	out, err := ri.Create(context.Background(), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(status)
	got, _ := json.Marshal(out.Object["status"])
	if hasStatus && string(got) != string(want) {
		out.Object["status"] = status
		if _, err := ri.UpdateStatus(context.Background(), out, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}
