package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
)

// fluxUnit creates a Flux-runtime object with a status, as its controller
// would have written it.
func fluxUnit(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, obj string, status string) {
	t.Helper()
	o := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(obj), &o.Object); err != nil {
		t.Fatal(err)
	}
	ri := dyn.Resource(gvr).Namespace(o.GetNamespace())
	out, err := ri.Create(context.Background(), o, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if status == "" {
		return
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(status), &st); err != nil {
		t.Fatal(err)
	}
	out.Object["status"] = st
	if _, err := ri.UpdateStatus(context.Background(), out, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestClusterFluxAndTerraformVerbsKeepTheirFlagsAndExitCodes(t *testing.T) {
	c := testcluster.SharedNewestUpstream(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	kc := testcluster.Kubeconfig(t, c.Config(), "test")
	const plan = "plan-main-1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
	ks := `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":%q,"namespace":%q},
		"spec":{"interval":"10m","prune":true,"sourceRef":{"kind":"GitRepository","name":"infra"}%s}}`
	fluxUnit(t, dyn, flux.Kustomizations[0], fmt.Sprintf(ks, "web", ns, ""), "")
	fluxUnit(t, dyn, flux.Kustomizations[0], fmt.Sprintf(ks, "held", ns, `,"suspend":true`), "")
	tf := `{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform","metadata":{"name":%q,"namespace":%q},
		"spec":{"interval":"10m","path":"./infra","sourceRef":{"kind":"GitRepository","name":"infra"}}}`
	fluxUnit(t, dyn, tofu.Terraforms[0], fmt.Sprintf(tf, "eks", ns), `{"plan":{"pending":"`+plan+`"},"lastPlannedGeneration":1}`)
	fluxUnit(t, dyn, tofu.Terraforms[0], fmt.Sprintf(tf, "stale", ns), `{"plan":{"pending":"`+plan+`"},"lastPlannedGeneration":7}`)

	cases := map[string]struct {
		args []string
		code int
		want string
	}{
		"refresh":               {[]string{"refresh", "kustomization/" + ns + "/web"}, 0, "handled when status.lastHandledReconcileAt shows it"},
		"refresh suspended":     {[]string{"refresh", "kustomization/" + ns + "/held"}, 6, "is suspended"},
		"refresh without a src": {[]string{"refresh", "kustomization/" + ns + "/web", "--with-source"}, 6, "source"},
		"approve a prefix":      {[]string{"approve", "terraform/" + ns + "/eks", "--revision", plan[:16], "--reason", "reviewed", "--yes"}, 6, "only a prefix"},
		"approve stale":         {[]string{"approve", "terraform/" + ns + "/stale", "--reason", "reviewed", "--yes"}, 6, "stale"},
		"approve":               {[]string{"approve", "terraform/" + ns + "/eks", "--reason", "reviewed", "--yes"}, 0, plan},
		"pause needs a reason":  {[]string{"pause", "kustomization/" + ns + "/web", "--yes"}, 2, "--reason is required"},
		"force-unlock no lock":  {[]string{"force-unlock", "terraform/" + ns + "/eks", "--reason", "x", "--yes"}, 6, "holds no state lock"},
	}
	for _, name := range []string{"refresh", "refresh suspended", "refresh without a src", "approve a prefix", "approve stale", "approve", "pause needs a reason", "force-unlock no lock"} {
		tc := cases[name]
		code, out, stderr := run(t, append(tc.args, "--kubeconfig", kc)...)
		if code != tc.code || !strings.Contains(out+stderr, tc.want) {
			t.Errorf("%s: exit %d, want %d with %q\nstdout: %s\nstderr: %s", name, code, tc.code, tc.want, out, stderr)
		}
	}
	o, err := dyn.Resource(tofu.Terraforms[0]).Namespace(ns).Get(context.Background(), "eks", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedString(o.Object, "spec", "approvePlan"); got != plan {
		t.Errorf("spec.approvePlan %q, want the full pending id", got)
	}
	// A freeze skips the unit suspended before it; the thaw, taking only
	// what driftdeck paused, leaves it so.
	for _, step := range [][2]string{{"freeze", "1 applied, 1 skipped, 0 failed"}, {"thaw", "1 applied, 0 skipped, 0 failed"}} {
		verb, want := step[0], step[1]
		code, out, stderr := run(t, verb, "-n", ns, "--engine", "kustomization", "--reason", "INC-4", "--yes", "--kubeconfig", kc)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d\n%s%s", verb, code, out, stderr)
		}
	}
	held, err := dyn.Resource(flux.Kustomizations[0]).Namespace(ns).Get(context.Background(), "held", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedBool(held.Object, "spec", "suspend"); !v {
		t.Error("the unit suspended before the freeze is resumed by the thaw")
	}
	// Resumed by name, as flux resume does, naming whose suspend it ends.
	code, out, stderr := run(t, "resume", "kustomization/"+ns+"/held", "--reason", "INC-4 over", "--yes", "--kubeconfig", kc)
	if code != 0 || !strings.Contains(out+stderr, "end a suspend driftdeck did not set (spec.suspend written by ") || !strings.Contains(out+stderr, "spec.suspend: true → false") {
		t.Errorf("resume of a suspend set outside driftdeck: exit %d\n%s%s", code, out, stderr)
	}
	held, err = dyn.Resource(flux.Kustomizations[0]).Namespace(ns).Get(context.Background(), "held", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, found, _ := unstructured.NestedBool(held.Object, "spec", "suspend"); !found || v {
		t.Errorf("resume by name left spec.suspend %v (found %v), want false", v, found)
	}
}
