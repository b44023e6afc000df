package actions

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pause"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/sim"
)

const (
	pinned   = "1111111111111111111111111111111111111111"
	proposed = "2222222222222222222222222222222222222222"
)

func (e *env) stack(name, annotations, spec string) *unstructured.Unstructured {
	return e.create(pulumiop.Stacks, `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":%q,"annotations":{%s}},
		"spec":{"stack":"org/%s/prod","projectRepo":"https://git.example.com/infra.git"%s},
		"status":{"lastUpdate":{"state":"succeeded","lastSuccessfulCommit":"`+pinned+`"},
			"conditions":[{"type":"Ready","status":"True","reason":"ProcessingCompleted","message":"","lastTransitionTime":"2026-11-29T09:00:00Z"}]}}`,
		name, annotations, name, spec)
}

func TestClusterStackActions(t *testing.T) {
	forEachGeneration(t, stackGVK, func(e *env, set string) {
		v1 := strings.HasPrefix(set, "pulumi-operator-v1")
		e.sub("retry queues a request and shows when it is handled", func(t *testing.T, e *env) {
			e.stack("net", "", `,"commit":"`+pinned+`"`)
			res := e.mustRun(Request{Kind: Retry, Key: e.key(model.EnginePulumi, "net"), Reason: "lock broken, run again"})
			o := e.get(pulumiop.Stacks, "net")
			if res.Token == "" || o.GetAnnotations()[pulumiop.AnnotationReconcileRequest] != res.Token {
				t.Fatalf("token %q, annotation %q", res.Token, o.GetAnnotations()[pulumiop.AnnotationReconcileRequest])
			}
			if u := pulumiop.Convert("test", o.Object); !v1 && (!u.Queued || !strings.Contains(u.RunReason, res.Token)) {
				t.Fatalf("a v2 Stack with an unhandled request shows %v %q", u.Run, u.RunReason)
			}
			if v1 {
				return // operator v1 has no lastUpdate.reconcileRequest to show it handled
			}
			// The operator handles it: lastUpdate.reconcileRequest takes the token.
			patch := `{"status":{"observedReconcileRequest":"` + res.Token + `","lastUpdate":{"reconcileRequest":"` + res.Token + `","name":"net-1","type":"up"}}}`
			if _, err := e.dyn.Resource(pulumiop.Stacks).Namespace(e.ns).Patch(context.Background(), "net", types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
				t.Fatal(err)
			}
			if u := pulumiop.Convert("test", e.get(pulumiop.Stacks, "net").Object); u.Queued || u.Run != model.Idle {
				t.Fatalf("handled request still shows %v %q", u.Run, u.RunReason)
			}
		})
		e.sub("approve moves a pinned Stack to the proposed commit", func(t *testing.T, e *env) {
			e.stack("net", `"driftdeck.io/proposed-commit":"`+proposed+`"`, `,"commit":"`+pinned+`"`)
			e.mustRun(Request{Kind: Approve, Key: e.key(model.EnginePulumi, "net"), Reason: "preview reviewed in CHG-7"})
			o := e.get(pulumiop.Stacks, "net")
			if c, _, _ := unstructured.NestedString(o.Object, "spec", "commit"); c != proposed {
				t.Fatalf("spec.commit %q", c)
			}
			if _, ok := o.GetAnnotations()[pulumiop.AnnotationProposedCommit]; ok {
				t.Error("the proposal must be consumed by the approval")
			}
			if ev := e.events("net"); !contains(ev, "DriftdeckApprove: "+e.actor+" approved commit 2222222") {
				t.Errorf("events %v", ev)
			}
		})
		e.sub("approve refuses a short commit", func(t *testing.T, e *env) {
			e.stack("net", `"driftdeck.io/proposed-commit":"2222222"`, `,"commit":"`+pinned+`"`)
			_, err := e.run(Request{Kind: Approve, Key: e.key(model.EnginePulumi, "net"), Reason: "x"})
			if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Reason, "full 40-character SHA") {
				t.Fatalf("got %v", err)
			}
		})
		e.sub("pause is preview-only where the CRD allows it", func(t *testing.T, e *env) {
			before := e.stack("net", "", `,"branch":"main"`)
			_, err := e.run(Request{Kind: Pause, Key: e.key(model.EnginePulumi, "net"), Reason: "INC-9"})
			if v1 {
				if r := (*Refusal)(nil); !errors.As(err, &r) || !strings.Contains(r.Reason, "no spec.preview") {
					t.Fatalf("operator v1 CRD: want a refusal, got %v", err)
				}
				if e.get(pulumiop.Stacks, "net").GetResourceVersion() != before.GetResourceVersion() {
					t.Fatal("the refused pause wrote something")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			o := e.get(pulumiop.Stacks, "net")
			if p, _, _ := unstructured.NestedBool(o.Object, "spec", "preview"); !p || o.GetAnnotations()[pause.AnnotationPrevious] != "null" {
				t.Fatalf("preview %v, previous %q", p, o.GetAnnotations()[pause.AnnotationPrevious])
			}
			if u := pulumiop.Convert("test", o.Object); u.Automation != model.Paused {
				t.Fatalf("automation %v", u.Automation)
			}
			e.mustRun(Request{Kind: Resume, Key: e.key(model.EnginePulumi, "net"), Reason: "INC-9 over"})
			spec, _, _ := unstructured.NestedMap(e.get(pulumiop.Stacks, "net").Object, "spec")
			beforeSpec, _, _ := unstructured.NestedMap(before.Object, "spec")
			if jsonOf(t, spec) != jsonOf(t, beforeSpec) {
				t.Fatalf("resume left spec %s, want %s", jsonOf(t, spec), jsonOf(t, beforeSpec))
			}
		})
		e.sub("retry under a concurrent status writer", func(t *testing.T, e *env) {
			e.stack("net", "", `,"commit":"`+pinned+`"`)
			ctx, cancel := context.WithCancel(context.Background())
			w := &sim.StatusWriter{Client: e.dyn.Resource(pulumiop.Stacks).Namespace(e.ns), Name: "net", Subresource: true,
				Counter: []string{"outputs", "writes"}}
			var wg sync.WaitGroup
			var n int
			var werr error
			wg.Add(1)
			go func() { defer wg.Done(); n, werr = w.Run(ctx) }()
			time.Sleep(100 * time.Millisecond)
			res := e.mustRun(Request{Kind: Retry, Key: e.key(model.EnginePulumi, "net"), Reason: "x"})
			time.Sleep(100 * time.Millisecond)
			cancel()
			wg.Wait()
			if werr != nil {
				t.Fatal(werr)
			}
			o := e.get(pulumiop.Stacks, "net")
			got, _, _ := unstructured.NestedString(o.Object, "status", "outputs", "writes")
			if got != itoa(n) || o.GetAnnotations()[pulumiop.AnnotationReconcileRequest] != res.Token {
				t.Fatalf("writer made %d writes, object holds %q; request %q", n, got, o.GetAnnotations()[pulumiop.AnnotationReconcileRequest])
			}
		})
	})
}
