package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// stuckSync is an Application whose sync has run for an hour, waiting on a
// hook: doctor's fix is to terminate it.
func stuckSync(name string) string {
	started := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	return `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"` + name + `"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"` + name + `"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"}},
		"operation":{"sync":{"revision":"4f1c2e9"}},
		"status":{"sync":{"status":"OutOfSync"},"health":{"status":"Progressing"},
			"operationState":{"phase":"Running","message":"waiting for completion of hook batch/Job/migrate","startedAt":"` + started + `","operation":{"sync":{"revision":"4f1c2e9"}}}}}`
}

// A fix doctor prints names the kubeconfig and the context the unit was
// found in, so that pasted where the current context is another cluster (or
// none reachable) it still acts there, on that unit.
func TestClusterDoctorsFixRunsOnTheContextItWasFoundIn(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	createJSON(t, dyn, ns, stuckSync("orders"))
	createJSON(t, dyn, ns, stuckSync("billing"))
	// The current context is a cluster that is down: a command that does
	// not name its context goes there.
	dir := t.TempDir()
	gone := rest.CopyConfig(c.Config())
	gone.Host = testcluster.RefusedURL(t)
	if err := testcluster.WriteKubeconfigContexts(filepath.Join(dir, "kubeconfig"), "elsewhere", map[string]*rest.Config{"elsewhere": gone, "found-here": c.Config()}); err != nil {
		t.Fatal(err)
	}

	// With $KUBECONFIG: the command names the context.
	t.Setenv("KUBECONFIG", filepath.Join(dir, "kubeconfig"))
	fix := doctorFix(t, "argocd/"+ns+"/orders", "doctor", "-n", ns, "--context", "found-here", "-o", "json")
	if !slices.Equal(fix[:3], []string{"driftdeck", "--context", "found-here"}) {
		t.Errorf("the fix does not name the context it was found in: %q", fix)
	}
	runFix(t, dyn, ns, "orders", fix)

	// With --kubeconfig, relative: the command names it by its absolute
	// path, and runs from another directory with no $KUBECONFIG.
	t.Setenv("KUBECONFIG", "")
	t.Chdir(dir)
	fix = doctorFix(t, "argocd/"+ns+"/billing", "doctor", "-n", ns, "--kubeconfig", "kubeconfig", "--context", "found-here", "-o", "json")
	if !slices.Equal(fix[:5], []string{"driftdeck", "--kubeconfig", filepath.Join(dir, "kubeconfig"), "--context", "found-here"}) {
		t.Errorf("the fix does not name the kubeconfig and context it was found in: %q", fix)
	}
	t.Chdir(t.TempDir())
	runFix(t, dyn, ns, "billing", fix)
}

// doctorFix runs doctor and returns the fix it prints for unit, as sh
// splits it into words.
func doctorFix(t *testing.T, unit string, args ...string) []string {
	t.Helper()
	code, out, stderr := run(t, args...)
	var findings []findingJSON
	if err := json.Unmarshal([]byte(out), &findings); code != exitFailed || err != nil {
		t.Fatalf("doctor: exit %d (%v), want 1\n%s%s", code, err, out, stderr)
	}
	for _, f := range findings {
		if f.Unit == unit && f.State == "stuck" && strings.Contains(f.Command, " terminate ") {
			words := shellWords(t, f.Command)
			if len(words) < 5 {
				t.Fatalf("the fix of %s: %q", unit, f.Command)
			}
			return words
		}
	}
	t.Fatalf("doctor names no terminate for %s:\n%s", unit, out)
	return nil
}

// runFix runs the fix as printed (with --yes: no terminal here) and checks
// that it terminated the sync of that Application.
func runFix(t *testing.T, dyn dynamic.Interface, ns, name string, fix []string) {
	t.Helper()
	if code, out, stderr := run(t, append(fix[1:], "--yes")...); code != 0 {
		t.Fatalf("the fix as printed, %q: exit %d\n%s%s", fix, code, out, stderr)
	}
	phase, _, _ := unstructured.NestedString(getApp(t, dyn, ns, name).Object, "status", "operationState", "phase")
	if phase != "Terminating" {
		t.Errorf("after the fix %q the sync of %s is %q, want Terminating", fix, name, phase)
	}
}
