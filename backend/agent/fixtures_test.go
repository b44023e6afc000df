package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// object creates a resource from JSON, then writes its status through the
// status subresource, as the engine's controller would have.
func (w *world) object(gvr schema.GroupVersionResource, body, status string) {
	w.t.Helper()
	o := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(body), &o.Object); err != nil {
		w.t.Fatalf("fixture %s: %v", body, err)
	}
	o.SetNamespace(w.ns)
	ri := w.dyn.Resource(gvr).Namespace(w.ns)
	out, err := ri.Create(context.Background(), o, metav1.CreateOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(status), &st); err != nil {
		w.t.Fatalf("fixture status %s: %v", status, err)
	}
	out.Object["status"] = st
	if _, err := ri.UpdateStatus(context.Background(), out, metav1.UpdateOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

// cond is a status condition as the Flux runtime and the Pulumi operator
// write it, changed d ago.
func cond(typ, status, reason, msg string, d time.Duration) string {
	return fmt.Sprintf(`{"type":%q,"status":%q,"reason":%q,"message":%q,"lastTransitionTime":%q}`, typ, status, reason, msg, ago(d))
}
