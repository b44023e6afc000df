package sim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/sim"
)

// preconditionedPatch writes like driftdeck's actions: a JSON patch that
// tests the resourceVersion it read, retried after re-reading on conflict.
func preconditionedPatch(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string, ops func(rv string) []any) (attempts int, err error) {
	ri := dyn.Resource(gvr).Namespace(ns)
	for attempts = 1; attempts <= 1000; attempts++ {
		cur, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return attempts, err
		}
		body, _ := json.Marshal(ops(cur.GetResourceVersion()))
		_, err = ri.Patch(ctx, name, types.JSONPatchType, body, metav1.PatchOptions{})
		if err == nil {
			return attempts, nil
		}
		var st apierrors.APIStatus
		if s, ok := err.(apierrors.APIStatus); ok {
			st = s
		}
		if !apierrors.IsConflict(err) && (st == nil || st.Status().Code != http.StatusUnprocessableEntity) {
			return attempts, err
		}
	}
	return attempts, fmt.Errorf("gave up")
}

// concurrentWrites runs a status writer while preconditioned writes add n
// annotations, and checks that nothing was lost on either side.
func concurrentWrites(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string, w *sim.StatusWriter, counter []string, n int) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	var writes int
	var werr error
	done := make(chan struct{})
	go func() { writes, werr = w.Run(ctx); close(done) }()
	var wg sync.WaitGroup
	retried := 0
	var mu sync.Mutex
	for i := range n {
		wg.Go(func() {
			attempts, err := preconditionedPatch(context.Background(), dyn, gvr, ns, name, func(rv string) []any {
				return []any{
					map[string]any{"op": "test", "path": "/metadata/resourceVersion", "value": rv},
					map[string]any{"op": "add", "path": "/metadata/annotations/driftdeck.io~1w" + strconv.Itoa(i), "value": "x"},
				}
			})
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			retried += attempts - 1
			mu.Unlock()
		})
	}
	wg.Wait()
	time.Sleep(20 * time.Millisecond)
	stop()
	<-done
	if werr != nil {
		t.Fatalf("status writer: %v", werr)
	}
	r := get(t, dyn, gvr, ns, name)
	if got := r.Str(append([]string{"status"}, counter...)...); got != strconv.Itoa(writes) {
		t.Errorf("status counter = %q after %d writes: a status write was lost", got, writes)
	}
	ann := r.StringMap("metadata", "annotations")
	for i := range n {
		if ann["driftdeck.io/w"+strconv.Itoa(i)] != "x" {
			t.Errorf("annotation %d lost", i)
		}
	}
	t.Logf("%d status writes, %d preconditioned writes (%d retries after conflicts)", writes, n, retried)
	if writes < 10 {
		t.Errorf("only %d status writes: the writer was not concurrent", writes)
	}
}

func TestStatusWriterAndPreconditionedWritesLoseNothing(t *testing.T) {
	statusWriterLosesNothing(t, fakeAPI(), "argocd")
}

func statusWriterLosesNothing(t *testing.T, dyn dynamic.Interface, ns string) {
	app := application(ns, "busy", nil, sha(1))
	app["metadata"].(map[string]any)["annotations"] = map[string]any{"seed": "1"}
	create(t, dyn, argocd.Applications, app)
	w := &sim.StatusWriter{Client: dyn.Resource(argocd.Applications).Namespace(ns), Name: "busy",
		Counter: []string{"health", "message"}, Stamp: []string{"reconciledAt"}}
	concurrentWrites(t, dyn, argocd.Applications, ns, "busy", w, []string{"health", "message"}, 20)

	st := stackObj(ns, "busy", map[string]any{"commit": sha(1)})
	st["metadata"].(map[string]any)["annotations"] = map[string]any{"seed": "1"}
	create(t, dyn, pulumiop.Stacks, st)
	ws := &sim.StatusWriter{Client: dyn.Resource(pulumiop.Stacks).Namespace(ns), Name: "busy", Subresource: true,
		Counter: []string{"outputs", "writes"}}
	concurrentWrites(t, dyn, pulumiop.Stacks, ns, "busy", ws, []string{"outputs", "writes"}, 20)
}
