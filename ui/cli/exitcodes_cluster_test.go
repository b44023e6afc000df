package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/testkit/syncbuf"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// argoApp is an Application the way Argo CD would have it: auto-sync on, or
// manual when automated is "".
func argoApp(name, automated string) string {
	policy := ""
	if automated != "" {
		policy = `,"syncPolicy":{"automated":` + automated + `}`
	}
	return `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"` + name + `"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"` + name + `"},
			"destination":{"server":"https://kubernetes.default.svc","namespace":"web"}` + policy + `},
		"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}}}`
}

func getApp(t *testing.T, dyn dynamic.Interface, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u, err := dyn.Resource(argocd.Applications).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestClusterExitCodesOfWrites(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	createJSON(t, dyn, ns, argoApp("auto", `{"prune":true}`))
	createJSON(t, dyn, ns, argoApp("manual", ""))
	admin := testcluster.Kubeconfig(t, c.Config(), "test")
	gone := c.Config()
	gone.Host = "https://127.0.0.1:1" // nothing listens there
	unreachable := testcluster.Kubeconfig(t, gone, "gone")
	viewer := testcluster.Kubeconfig(t, c.UserConfig(t, "viewer", []rbacv1.PolicyRule{
		{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "list", "watch"}},
	}, ns), "viewer")
	auto, manual, missing := "argocd/"+ns+"/auto", "argocd/"+ns+"/manual", "argocd/"+ns+"/missing"

	for name, tc := range map[string]struct {
		args []string
		code int
		says string
	}{
		"unreachable write":   {[]string{"pause", auto, "--reason", "x", "--yes", "--kubeconfig", unreachable, "--request-timeout", "5s"}, 3, "connection refused"},
		"unreachable refresh": {[]string{"refresh", auto, "--kubeconfig", unreachable, "--request-timeout", "5s"}, 3, "connection refused"},
		"forbidden by RBAC":   {[]string{"pause", auto, "--reason", "x", "--yes", "--kubeconfig", viewer}, 4, "patch"},
		"read-only":           {[]string{"pause", auto, "--reason", "x", "--yes", "--read-only", "--kubeconfig", admin}, 4, "read-only"},
		"pause not found":     {[]string{"pause", missing, "--reason", "x", "--yes", "--kubeconfig", admin}, 5, "does not exist"},
		"diff not found":      {[]string{"diff", missing, "--kubeconfig", admin}, 5, "does not exist"},
		"unlock not found":    {[]string{"unlock", "pulumi/" + ns + "/missing", "--reason", "x", "--yes", "--kubeconfig", admin}, 5, "does not exist"},
		"refused by state":    {[]string{"pause", manual, "--reason", "x", "--yes", "--kubeconfig", admin}, 6, "manual sync policy"},
		"nothing to end":      {[]string{"terminate", manual, "--reason", "x", "--yes", "--kubeconfig", admin}, 6, ""},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := run(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.says) {
				t.Errorf("driftdeck %s: exit %d, stderr %q; want exit %d saying %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.says)
			}
			if strings.Contains(stdout, "done") {
				t.Errorf("something was written: %s", stdout)
			}
		})
	}
	if u := getApp(t, dyn, ns, "auto"); u.GetAnnotations()["driftdeck.io/paused-by"] != "" {
		t.Errorf("a refused pause left its annotations: %v", u.GetAnnotations())
	}
}

// A refresh of an Application whose refresh is already requested (the
// controller has not picked it up) asks for what already holds: done, exit
// 0, saying so, and nothing written.
func TestClusterARefreshAlreadyRequestedIsDone(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	createJSON(t, dyn, ns, strings.Replace(argoApp("held", ""), `"metadata":{"name":"held"}`,
		`"metadata":{"name":"held","annotations":{"`+argocd.AnnotationRefresh+`":"hard"}}`, 1))
	before := getApp(t, dyn, ns, "held").GetResourceVersion()
	kc := testcluster.Kubeconfig(t, c.Config(), "test")
	for _, args := range [][]string{{"refresh", "argocd/" + ns + "/held"}, {"refresh", "argocd/" + ns + "/held", "--hard"}} {
		code, out, stderr := run(t, append(args, "--kubeconfig", kc)...)
		if code != 0 || !strings.Contains(out, "unchanged: ") || !strings.Contains(out, "a hard refresh is already requested") {
			t.Errorf("driftdeck %s: exit %d, stdout %q, stderr %q; want exit 0 saying the refresh is already requested", strings.Join(args, " "), code, out, stderr)
		}
	}
	if after := getApp(t, dyn, ns, "held").GetResourceVersion(); after != before {
		t.Errorf("the Application was written (resourceVersion %s → %s)", before, after)
	}
}

func TestClusterAConfirmedPlanIsNotWrittenOnceTheObjectChanged(t *testing.T) {
	c := testcluster.Shared(t)
	isolate(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	createJSON(t, dyn, ns, argoApp("web", `{"prune":true,"selfHeal":true}`))
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	go func() { _, _ = bytes.NewBuffer(nil).ReadFrom(ptmx) }() // the terminal's echo

	var stdout bytes.Buffer
	stderr := &syncbuf.Buffer{}
	exit := make(chan int, 1)
	go func() {
		exit <- Main([]string{"pause", "argocd/" + ns + "/web", "--reason", "INC-1", "--kubeconfig", testcluster.Kubeconfig(t, c.Config(), "test")}, tty, &stdout, stderr)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "Proceed?") {
		if time.Now().After(deadline) {
			t.Fatalf("no confirmation asked: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Somebody turns self-heal off by hand while the question is open.
	patch := []byte(`{"spec":{"syncPolicy":{"automated":{"prune":true,"selfHeal":false}}}}`)
	if _, err := dyn.Resource(argocd.Applications).Namespace(ns).Patch(context.Background(), "web", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ptmx.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	var code int
	select {
	case code = <-exit:
	case <-time.After(30 * time.Second):
		t.Fatal("the command did not end after the answer")
	}
	if code != exitRefused || !strings.Contains(stderr.String(), "PLAN CHANGED") || !strings.Contains(stderr.String(), "nothing was written") ||
		!strings.Contains(stderr.String(), "Would write") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 6 with the new plan", code, stderr.String())
	}
	u := getApp(t, dyn, ns, "web")
	if u.GetAnnotations()["driftdeck.io/paused-by"] != "" || strings.Contains(stdout.String(), "done") {
		t.Errorf("the changed object was written: %v\n%s", u.GetAnnotations(), stdout.String())
	}
	if policy, _, _ := unstructured.NestedMap(u.Object, "spec", "syncPolicy", "automated"); policy["selfHeal"] != false {
		t.Errorf("automated = %v, want what the other writer left", policy)
	}
}
