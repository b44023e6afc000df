package fleet

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
)

// obj builds an object from a JSON template with fmt arguments.
func obj(t testing.TB, format string, args ...any) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(fmt.Sprintf(format, args...)), &u.Object); err != nil {
		t.Fatalf("bad test object: %v\n%s", err, fmt.Sprintf(format, args...))
	}
	return u
}

// create makes an object and then writes its status the way its controller
// would: through the status subresource when the CRD has one.
func create(t testing.TB, dyn dynamic.Interface, gvr schema.GroupVersionResource, o *unstructured.Unstructured, statusSubresource bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	status, hasStatus := o.Object["status"]
	ri := dyn.Resource(gvr).Namespace(o.GetNamespace())
	created, err := ri.Create(ctx, o, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating %s %s: %v", gvr.Resource, o.GetName(), err)
	}
	if hasStatus && statusSubresource {
		created.Object["status"] = status
		if _, err := ri.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("writing the status of %s: %v", o.GetName(), err)
		}
	}
}

// patchStatus merges a status change the way a controller does.
func patchStatus(t testing.TB, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name, statusJSON string, subresource bool) {
	t.Helper()
	var sub []string
	if subresource {
		sub = []string{"status"}
	}
	body := []byte(`{"status":` + statusJSON + `}`)
	if _, err := dyn.Resource(gvr).Namespace(ns).Patch(context.Background(), name, types.MergePatchType, body, metav1.PatchOptions{}, sub...); err != nil {
		t.Fatalf("patching the status of %s: %v", name, err)
	}
}

func ago(d time.Duration) string { return time.Now().Add(-d).UTC().Format(time.RFC3339) }
