package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// mergePatch writes only the fields in patch (null deletes), the way the real
// controllers write: no resourceVersion, so a concurrent writer's fields are
// kept and ours land whatever happened in between.
func mergePatch(ctx context.Context, ri dynamic.ResourceInterface, name, manager string, patch map[string]any, subresource ...string) (*unstructured.Unstructured, error) {
	body, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	out, err := ri.Patch(ctx, name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: manager}, subresource...)
	if err != nil {
		return nil, fmt.Errorf("patching %s: %w", name, err)
	}
	return out, nil
}

// timestamp renders a time as Kubernetes does (metav1.Time: RFC 3339, seconds).
func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// conditions edits a list of metav1.Conditions with the apimachinery functions
// the operators use, so lastTransitionTime changes only when status does.
type conditions []metav1.Condition

func readConditions(raw []any) conditions {
	var out conditions
	for _, it := range raw {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		var c metav1.Condition
		if runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c) == nil {
			out = append(out, c)
		}
	}
	return out
}

func (cs *conditions) set(typ, status, reason, message string, now time.Time) {
	list := []metav1.Condition(*cs)
	apimeta.SetStatusCondition(&list, metav1.Condition{
		Type: typ, Status: metav1.ConditionStatus(status), Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(now),
	})
	*cs = list
}

func (cs *conditions) remove(typ string) {
	list := []metav1.Condition(*cs)
	apimeta.RemoveStatusCondition(&list, typ)
	*cs = list
}

func (cs conditions) get(typ string) *metav1.Condition {
	return apimeta.FindStatusCondition(cs, typ)
}

func (cs conditions) raw() []any {
	out := make([]any, 0, len(cs))
	for _, c := range cs {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
		if err == nil {
			out = append(out, m)
		}
	}
	return out
}

// recorder emits core/v1 Events the way a controller's event recorder does.
type recorder struct {
	kube      kubernetes.Interface
	component string
	onError   func(error)
}

func (r recorder) event(ctx context.Context, obj *unstructured.Unstructured, typ, reason, message string) {
	if r.kube == nil {
		return
	}
	now := metav1.Now()
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s.%x", obj.GetName(), time.Now().UnixNano()),
			Namespace: obj.GetNamespace(),
		},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(),
			Name: obj.GetName(), UID: obj.GetUID(), ResourceVersion: obj.GetResourceVersion(),
		},
		Reason: reason, Message: message, Type: typ,
		Source:         corev1.EventSource{Component: r.component},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
		ReportingController: r.component,
	}
	if _, err := r.kube.CoreV1().Events(obj.GetNamespace()).Create(ctx, ev, metav1.CreateOptions{}); err != nil && r.onError != nil && ctx.Err() == nil {
		r.onError(fmt.Errorf("recording event %s on %s: %w", reason, obj.GetName(), err))
	}
}
