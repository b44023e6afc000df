package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// freezeUnits are ten units a freeze pauses, each with what a pause must
// record and a thaw give back exactly in another shape: five Applications'
// sync policies, two Kustomizations and three Stacks. The freeze takes them
// in key order: Applications, Kustomizations, Stacks.
var freezeUnits = func() []freezeUnit {
	var units []freezeUnit
	for i, policy := range []string{
		`{"automated":{}}`,
		`{"automated":{"prune":true,"allowEmpty":true}}`,
		`{"automated":{"enabled":true,"selfHeal":false}}`,
		`{"automated":{"selfHeal":true},"managedNamespaceMetadata":{"labels":{"team":"a"}},"retry":{"limit":3}}`,
		`{"automated":{"prune":true},"syncOptions":["ServerSideApply=true","PruneLast=true"]}`,
	} {
		units = append(units, freezeUnit{argocd.Applications, fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"app-%d","labels":{"team":"payments"}},
			"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"app-%d"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},"syncPolicy":%s}}`, i, i, policy)})
	}
	for i, spec := range []string{`"suspend":false`, `"force":true`} {
		units = append(units, freezeUnit{flux.Kustomizations[0], fmt.Sprintf(`{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":"ks-%d","labels":{"team":"payments"}},
			"spec":{"interval":"10m","prune":true,"path":"./web","sourceRef":{"kind":"GitRepository","name":"infra"},%s}}`, i, spec)})
	}
	for i, spec := range []string{`"refresh":true`, `"preview":false,"resyncFrequencySeconds":60`, `"continueResyncOnCommitMatch":true`} {
		units = append(units, freezeUnit{pulumiop.Stacks, fmt.Sprintf(`{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"stack-%d","labels":{"team":"payments"}},
			"spec":{"stack":"org/net/prod-%d","projectRepo":"https://git.example.com/i.git","branch":"main",%s}}`, i, i, spec)})
	}
	return units
}()

type freezeUnit struct {
	gvr  schema.GroupVersionResource
	json string
}

// what a thaw must restore: everything but the server's bookkeeping.
func restorable(o *unstructured.Unstructured) map[string]any {
	return map[string]any{"spec": o.Object["spec"], "labels": o.GetLabels(), "annotations": o.GetAnnotations()}
}

func paused(o *unstructured.Unstructured) bool {
	_, ok := o.GetAnnotations()["driftdeck.io/paused-at"]
	return ok
}

// A freeze of ten units killed (SIGKILL) halfway leaves each unit either
// paused with its previous state recorded or untouched, some of each, and a
// thaw then gives every unit back exactly what it had.
func TestClusterAFreezeKilledHalfwayIsThawedExactly(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	for _, u := range freezeUnits {
		create(t, dyn, u.gvr, ns, u.json)
	}
	kinds := []schema.GroupVersionResource{argocd.Applications, pulumiop.Stacks, flux.Kustomizations[0]}
	list := func() map[string]*unstructured.Unstructured {
		out := map[string]*unstructured.Unstructured{}
		for _, gvr := range kinds {
			l, err := dyn.Resource(gvr).Namespace(ns).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range l.Items {
				out[l.Items[i].GetKind()+"/"+l.Items[i].GetName()] = &l.Items[i]
			}
		}
		return out
	}
	before := list()
	if len(before) != len(freezeUnits) {
		t.Fatalf("%d units created, want %d", len(before), len(freezeUnits))
	}
	// The freeze reaches the cluster through a slow link, so that each unit
	// takes a good part of a second: the kill lands while units are left,
	// however busy the machine, and the poll (direct, fast) sees each pause.
	proxy := c.Proxy(t)
	proxy.SetLatency(250 * time.Millisecond)
	kc := testcluster.Kubeconfig(t, proxy.Config(), "e2e")
	env := append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())

	freeze := exec.Command(binary, "freeze", "-n", ns, "--reason", "INC-9: freeze", "--yes", "--kubeconfig", kc)
	freeze.Env = env
	if err := freeze.Start(); err != nil {
		t.Fatal(err)
	}
	// Killed once it paused a unit of each engine: the first Stack, with
	// two Stacks left.
	killedAt := -1
	for deadline := time.Now().Add(startup); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		n, engines := 0, map[string]bool{}
		for _, o := range list() {
			if paused(o) {
				n++
				engines[o.GetKind()] = true
			}
		}
		if len(engines) == len(kinds) {
			_ = freeze.Process.Signal(syscall.SIGKILL)
			killedAt = n
			break
		}
	}
	_ = freeze.Wait()
	if killedAt < 0 {
		t.Fatal("the freeze never paused a unit of each engine")
	}
	mid := list()
	npaused := 0
	for name, o := range mid {
		if !paused(o) {
			if !reflect.DeepEqual(restorable(o), restorable(before[name])) {
				t.Errorf("%s is not paused but changed by the killed freeze:\n%v\nwas\n%v", name, restorable(o), restorable(before[name]))
			}
			continue
		}
		npaused++
		if _, ok := o.GetAnnotations()["driftdeck.io/paused-previous"]; !ok {
			t.Errorf("%s is paused without its previous state recorded: %v", name, o.GetAnnotations())
		}
	}
	t.Logf("the freeze was killed with %d of %d units paused (%d seen when the kill was sent)", npaused, len(freezeUnits), killedAt)
	if npaused == 0 || npaused >= len(freezeUnits) {
		t.Fatalf("the kill did not land halfway: %d of %d units paused", npaused, len(freezeUnits))
	}

	proxy.SetLatency(0)
	thaw := exec.Command(binary, "thaw", "-n", ns, "--reason", "INC-9: over", "--yes", "--kubeconfig", kc)
	thaw.Env = env
	out, err := thaw.CombinedOutput()
	if err != nil {
		t.Fatalf("thaw: %v\n%s", err, out)
	}
	if got := strings.Count(string(out), "applied"); got < npaused {
		t.Errorf("thaw reports %d applied for %d paused units:\n%s", got, npaused, out)
	}
	after := list()
	for name, o := range before {
		if !reflect.DeepEqual(restorable(after[name]), restorable(o)) {
			t.Errorf("%s after thaw:\n%v\nbefore the freeze:\n%v", name, restorable(after[name]), restorable(o))
		}
	}
}
