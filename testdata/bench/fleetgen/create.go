package fleetgen

import (
	"context"
	"errors"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// applications is the resource Applications are created through.
var applications = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

// CreateApplications creates Applications 0 to n-1 in namespace, with
// labels besides their own, on eight connections at once, and returns them as the
// apiserver keeps them.
func CreateApplications(ctx context.Context, dyn dynamic.Interface, namespace string, n int, labels map[string]any) ([]map[string]any, error) {
	apps := dyn.Resource(applications).Namespace(namespace)
	now := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				obj := Application(i, now)
				md := obj["metadata"].(map[string]any)
				md["namespace"] = namespace
				if len(labels) > 0 {
					own, _ := md["labels"].(map[string]any)
					if own == nil {
						own = map[string]any{}
					}
					for k, v := range labels {
						own[k] = v
					}
					md["labels"] = own
				}
				if _, err := apps.Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	list, err := apps.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(list.Items))
	for i := range list.Items {
		out[i] = list.Items[i].Object
	}
	return out, nil
}
