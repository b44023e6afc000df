package realcontrollers

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/sim"
	"github.com/driftdeck/driftdeck/backend/testkit/testargocd"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// appSetSide is an ApplicationSet with generated children, reconciled by
// the real argocd-applicationset-controller (in Argo CD's namespace) or by
// the simulated one (in a namespace of its own).
type appSetSide struct {
	t          *testing.T
	e          *env
	ns         string
	set, child string
	// children are all it generates, child the first.
	children []string
	logs     func() string
}

// newAppSetSide creates the ApplicationSet (with an ignore rule of somebody
// else's) generating n children and waits for them; ctl names the
// controller in failures.
func newAppSetSide(t *testing.T, e *env, ns, repoURL, ctl string, logs func() string, n int) *appSetSide {
	suffix := e.dest[len(e.dest)-5:]
	s := &appSetSide{t: t, e: e, ns: ns, set: "as-" + suffix, child: "as-web-" + suffix, logs: logs}
	var elements []string
	for i := range n {
		name := s.child
		if i > 0 {
			name = fmt.Sprintf("as-web%d-%s", i, suffix)
		}
		s.children = append(s.children, name)
		elements = append(elements, `{"name":"`+name+`"}`)
	}
	set := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(`{"apiVersion":"argoproj.io/v1alpha1","kind":"ApplicationSet","metadata":{"name":"`+s.set+`"},
		"spec":{"goTemplate":true,"generators":[{"list":{"elements":[`+strings.Join(elements, ",")+`]}}],
			"ignoreApplicationDifferences":[{"name":"somebody-else","jsonPointers":["/spec/source/targetRevision"]}],
			"template":{"metadata":{"name":"{{.name}}","labels":{"team":"t"},"annotations":{"owner":"team-t"}},
				"spec":{"project":"default","source":{"repoURL":"`+repoURL+`","path":"web","targetRevision":"main"},
					"destination":{"server":"https://kubernetes.default.svc","namespace":"`+e.dest+`"},
					"syncPolicy":{"automated":{"prune":true,"selfHeal":true}}}}}}`), &set.Object); err != nil {
		t.Fatal(err)
	}
	if _, err := s.sets().Create(t.Context(), set, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// No garbage collector runs here: the children go with their ApplicationSet by hand.
	t.Cleanup(func() {
		_ = s.sets().Delete(context.Background(), s.set, metav1.DeleteOptions{})
		for _, c := range s.children {
			_ = s.apps().Delete(context.Background(), c, metav1.DeleteOptions{})
		}
	})
	for _, c := range s.children {
		waitFor(t, ctl+" to generate "+c, func() (bool, string) {
			_, err := s.apps().Get(t.Context(), c, metav1.GetOptions{})
			return err == nil, "not yet"
		}, logs)
	}
	return s
}

// realAppSetSide runs the real controller over the repository, for an
// ApplicationSet of n children.
func realAppSetSide(t *testing.T, e *env, repo *testargocd.Repo, n int) *appSetSide {
	if err := e.argo.StartApplicationSetController(); err != nil {
		t.Fatal(err)
	}
	return newAppSetSide(t, e, testargocd.Namespace, repo.URL(), "the real ApplicationSet controller",
		func() string { return "applicationset-controller log:\n" + e.argo.Log("applicationset-controller") }, n)
}

// simAppSetSide runs backend/sim's controller in a namespace of its own.
func simAppSetSide(t *testing.T, e *env, repoURL string) *appSetSide {
	ns := testcluster.Shared(t).Namespace(t)
	ctx, cancel := context.WithCancel(context.Background())
	ctl := sim.NewAppSet(e.dyn, sim.AppSetOptions{Namespace: ns, OnError: func(err error) {
		if ctx.Err() == nil {
			t.Logf("simulated applicationset controller: %v", err)
		}
	}})
	done := make(chan struct{})
	go func() { _ = ctl.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return newAppSetSide(t, e, ns, repoURL, "the simulated ApplicationSet controller", func() string { return "" }, 1)
}

func (s *appSetSide) sets() dynamic.ResourceInterface {
	return s.e.dyn.Resource(argocd.ApplicationSets).Namespace(s.ns)
}

func (s *appSetSide) apps() dynamic.ResourceInterface {
	return s.e.dyn.Resource(argocd.Applications).Namespace(s.ns)
}

func (s *appSetSide) key() model.Key { return s.keyOf(s.child) }

func (s *appSetSide) keyOf(child string) model.Key {
	return model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: s.ns, Name: child}
}

func (s *appSetSide) getSet() map[string]any { return s.get(s.sets(), s.set) }
func (s *appSetSide) getApp() map[string]any { return s.get(s.apps(), s.child) }

func (s *appSetSide) get(ri dynamic.ResourceInterface, name string) map[string]any {
	s.t.Helper()
	o, err := ri.Get(s.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	return o.Object
}

// patchApp writes to the child by hand.
func (s *appSetSide) patchApp(pt types.PatchType, body string) {
	s.t.Helper()
	if _, err := s.apps().Patch(s.t.Context(), s.child, pt, []byte(body), metav1.PatchOptions{}); err != nil {
		s.t.Fatal(err)
	}
}

// reconciled returns after a reconcile that began after the call: one that
// undid a hand edit of the child's label, which the controller owns.
func (s *appSetSide) reconciled() {
	s.t.Helper()
	s.patchApp(types.MergePatchType, `{"metadata":{"labels":{"team":"edited"}}}`)
	waitFor(s.t, "a reconcile of "+s.child, func() (bool, string) {
		l, _, _ := unstructured.NestedString(s.getApp(), "metadata", "labels", "team")
		return l == "t", "label team=" + l
	}, s.logs)
}
