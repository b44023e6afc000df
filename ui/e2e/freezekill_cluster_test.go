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
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/testcluster"
)

// policies are ten Applications' sync policies, each a different shape a
// pause must record and a thaw must give back exactly.
var policies = []string{
	`{"automated":{}}`,
	`{"automated":{"selfHeal":true}}`,
	`{"automated":{"prune":true,"selfHeal":true}}`,
	`{"automated":{"prune":true,"allowEmpty":true}}`,
	`{"automated":{"enabled":true,"selfHeal":false}}`,
	`{"automated":{"selfHeal":true},"syncOptions":["CreateNamespace=true"]}`,
	`{"automated":{"prune":false},"retry":{"limit":3}}`,
	`{"automated":{"selfHeal":true},"managedNamespaceMetadata":{"labels":{"team":"a"}}}`,
	`{"automated":{"prune":true},"syncOptions":["ServerSideApply=true","PruneLast=true"]}`,
	`{"automated":{"allowEmpty":false,"selfHeal":true}}`,
}

// what a thaw must restore: everything but the server's bookkeeping.
func restorable(o *unstructured.Unstructured) map[string]any {
	return map[string]any{"spec": o.Object["spec"], "labels": o.GetLabels(), "annotations": o.GetAnnotations()}
}

func paused(o *unstructured.Unstructured) bool {
	_, ok := o.GetAnnotations()["driftdeck.io/paused-at"]
	return ok
}

// A freeze of ten units killed (SIGKILL) once three are paused leaves each
// unit either paused with its previous policy recorded or untouched, and a
// thaw then gives every Application back exactly what it had.
func TestClusterAFreezeKilledHalfwayIsThawedExactly(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	apps := dyn.Resource(argocd.Applications).Namespace(ns)
	for i, p := range policies {
		create(t, dyn, argocd.Applications, ns, fmt.Sprintf(`{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"app-%d","labels":{"team":"payments"}},
			"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"app-%d"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},"syncPolicy":%s}}`, i, i, p))
	}
	list := func() map[string]*unstructured.Unstructured {
		l, err := apps.List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*unstructured.Unstructured{}
		for i := range l.Items {
			out[l.Items[i].GetName()] = &l.Items[i]
		}
		return out
	}
	before := list()
	kc := testcluster.Kubeconfig(t, c.Config(), "e2e")
	env := append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())

	freeze := exec.Command(binary, "freeze", "-n", ns, "--reason", "INC-9: freeze", "--yes", "--kubeconfig", kc)
	freeze.Env = env
	if err := freeze.Start(); err != nil {
		t.Fatal(err)
	}
	killedAt := -1
	for deadline := time.Now().Add(startup); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		n := 0
		for _, o := range list() {
			if paused(o) {
				n++
			}
		}
		if n >= 3 {
			_ = freeze.Process.Signal(syscall.SIGKILL)
			killedAt = n
			break
		}
	}
	_ = freeze.Wait()
	if killedAt < 0 {
		t.Fatal("the freeze never paused three units")
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
			t.Errorf("%s is paused without its previous policy recorded: %v", name, o.GetAnnotations())
		}
	}
	t.Logf("the freeze was killed with %d of %d units paused (%d seen when the kill was sent)", npaused, len(policies), killedAt)

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
