package cli

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/testkit/testchangereq"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

const autoApp = `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"NAME"},
	"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},
	"syncPolicy":{"automated":{"selfHeal":true}}}}`

// requestWorld is a namespace with an Application that syncs by itself,
// the change requests installed as shipped, the kubeconfigs of two people
// who may ask and review there, and the agent's applier.
type requestWorld struct {
	ns         string
	admin      dynamic.Interface
	kubeconfig map[string]string
	agent      *changereq.Applier
}

func newRequestWorld(t *testing.T) *requestWorld {
	t.Helper()
	c := testcluster.Shared(t)
	isolate(t)
	testchangereq.Install(t, c)
	w := &requestWorld{ns: c.Namespace(t), admin: dynamic.NewForConfigOrDie(c.Config()), kubeconfig: map[string]string{}}
	create(t, w.admin, autoApp, "web", w.ns)
	read := []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "list", "watch"}}}
	for _, name := range []string{"ask-ann", "ask-ben"} {
		cfg := c.UserConfig(t, name, read, w.ns)
		testchangereq.Bind(t, c, w.ns, name, "driftdeck-change-requester")
		testchangereq.Bind(t, c, w.ns, name, "driftdeck-change-reviewer")
		w.kubeconfig[name] = testcluster.KubeconfigIn(t, cfg, "prod", w.ns)
	}
	kc, err := kube.NewCluster("prod", testchangereq.AgentConfig(t, c), w.ns)
	if err != nil {
		t.Fatal(err)
	}
	exec := &actions.Executor{Cluster: func(string) (*kube.Cluster, bool) { return kc, true }}
	w.agent = &changereq.Applier{Context: "prod", Namespace: w.ns, Exec: exec, Logf: t.Logf}
	return w
}

func (w *requestWorld) as(t *testing.T, who string, args ...string) (int, string, string) {
	t.Helper()
	return run(t, append([]string{"--kubeconfig", w.kubeconfig[who]}, args...)...)
}

var requestedName = regexp.MustCompile(`requested: (\S+) in context prod`)

// ask has who request the action and returns the request's name.
func (w *requestWorld) ask(t *testing.T, who string, args ...string) string {
	t.Helper()
	code, out, errOut := w.as(t, who, append([]string{"request"}, args...)...)
	m := requestedName.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("request %v: exit %d\n%s\n%s", args, code, out, errOut)
	}
	return m[1]
}

// One person asks on the command line, their own approval is refused by the
// API server (exit 4), another approves after reading the stored write, the
// agent applies it, and a review of the applied request exits 6.
func TestClusterAChangeRequestFromAskingToAppliedOnTheCommandLine(t *testing.T) {
	w := newRequestWorld(t)
	unit := "argocd/" + w.ns + "/web"
	code, out, errOut := w.as(t, "ask-ann", "request", "pause", unit, "--until", "2h", "--reason", "INC-7: hold the rollout")
	m := requestedName.FindStringSubmatch(out)
	if code != 0 || m == nil || !strings.Contains(errOut, "The request asks to write") || !strings.Contains(errOut, "spec.syncPolicy.automated") {
		t.Fatalf("request pause: exit %d\n%s\n%s", code, out, errOut)
	}
	name := m[1]
	if !strings.Contains(out, "driftdeck --context prod review "+name+" --approve") {
		t.Errorf("the request does not say how to review it, in which context:\n%s", out)
	}

	code, _, errOut = w.as(t, "ask-ann", "review", name, "--approve", "--reason", "mine", "--yes")
	if code != exitForbidden || !strings.Contains(errOut, "ask-ann asked for this change and may not review it") {
		t.Errorf("a self-approval: exit %d, %s; want 4 with the API server's words", code, errOut)
	}

	code, out, _ = w.as(t, "ask-ben", "requests", "-o", "json")
	var listed []requestJSON
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed) != 1 {
		t.Fatalf("requests -o json: exit %d, %v\n%s", code, err, out)
	}
	if l := listed[0]; l.Namespace+"/"+l.Name != name || l.State != changereq.Pending || l.Request.Requester != "ask-ann" || l.Request.Plan.Patch == "" {
		t.Errorf("the listed request: %+v", l)
	}

	code, out, errOut = w.as(t, "ask-ben", "review", name, "--approve", "--reason", "matches INC-7", "--yes")
	if code != 0 || !strings.Contains(out, "approved: "+name) || !strings.Contains(errOut, "patch  [{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\"") ||
		!strings.Contains(errOut, "digest sha256:") {
		t.Fatalf("ask-ben's approval: exit %d\n%s\n%s", code, out, errOut)
	}
	w.agent.Pass(context.Background())
	app, err := w.admin.Resource(argocd.Applications).Namespace(w.ns).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, auto, _ := unstructured.NestedMap(app.Object, "spec", "syncPolicy", "automated"); auto || app.GetAnnotations()["driftdeck.io/paused-by"] != "ask-ann" {
		t.Errorf("after the agent's pass the app is not paused by the requester: %v %v", app.Object["spec"], app.GetAnnotations())
	}
	code, out, _ = w.as(t, "ask-ann", "requests", "-o", "wide")
	if code != 0 || !strings.Contains(out, "Applied") || !strings.Contains(out, "ask-ben:approve (1/1)") {
		t.Errorf("requests -o wide after the apply: exit %d\n%s", code, out)
	}
	code, _, errOut = w.as(t, "ask-ben", "review", name, "--reject", "--reason", "too late", "--yes")
	if code != exitRefused || !strings.Contains(errOut, "the change request is applied") {
		t.Errorf("a review of an applied request: exit %d, %s; want 6", code, errOut)
	}
}

// A request whose unit changed in what it writes is never applied: the
// agent marks it stale, and its review exits 6. The requester may cancel
// their own; an unlock cannot be requested.
func TestClusterAStaleRequestExitsSixAndTheRequesterMayCancel(t *testing.T) {
	w := newRequestWorld(t)
	unit := "argocd/" + w.ns + "/web"
	if code, _, errOut := w.as(t, "ask-ann", "pause", unit, "--reason", "hold", "--yes"); code != exitForbidden ||
		!strings.Contains(errOut, "you may ask for it instead") || !strings.Contains(errOut, "driftdeck --context prod request pause "+unit) {
		t.Errorf("a pause the requester may not write: exit %d, %s; want 4 and how to ask for it", code, errOut)
	}
	stale := w.ask(t, "ask-ann", "pause", unit, "--reason", "hold")
	if code, out, errOut := w.as(t, "ask-ben", "review", stale, "--approve", "--reason", "ok", "--yes"); code != 0 {
		t.Fatalf("approve: exit %d %s %s", code, out, errOut)
	}
	// Someone turns self-heal off by hand before the agent's pass.
	if _, err := w.admin.Resource(argocd.Applications).Namespace(w.ns).Patch(context.Background(), "web", types.MergePatchType,
		[]byte(`{"spec":{"syncPolicy":{"automated":{"selfHeal":false}}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	w.agent.Pass(context.Background())
	code, out, _ := w.as(t, "ask-ben", "requests", "-o", "wide")
	if code != 0 || !strings.Contains(out, "Stale") || !strings.Contains(out, "selfHeal") {
		t.Errorf("requests -o wide with a stale request: exit %d\n%s", code, out)
	}
	if code, _, errOut := w.as(t, "ask-ann", "request", "cancel", stale, "--reason", "moot"); code != exitRefused || !strings.Contains(errOut, "stale") {
		t.Errorf("cancelling a stale request: exit %d, %s; want 6", code, errOut)
	}

	open := w.ask(t, "ask-ann", "refresh", unit, "--reason", "look again", "--expires", "1h")
	if code, _, errOut := w.as(t, "ask-ben", "request", "cancel", open, "--reason", "not mine"); code != exitForbidden || !strings.Contains(errOut, "only the requester may cancel") {
		t.Errorf("a cancel by another: exit %d, %s; want 4", code, errOut)
	}
	if code, out, errOut := w.as(t, "ask-ann", "request", "cancel", open, "--reason", "not needed"); code != 0 || !strings.Contains(out, "cancelled: "+open) {
		t.Errorf("the requester's cancel: exit %d\n%s\n%s", code, out, errOut)
	}
	w.agent.Pass(context.Background())
	code, out, _ = w.as(t, "ask-ann", "requests")
	if code != 0 || strings.Count(out, "Cancelled") != 1 {
		t.Errorf("requests after the cancel: exit %d\n%s", code, out)
	}
	if code, _, errOut := w.as(t, "ask-ann", "request", "unlock", "pulumi/"+w.ns+"/net", "--reason", "x"); code != exitUsage || !strings.Contains(errOut, "state backend") {
		t.Errorf("request unlock: exit %d, %s; want 2 saying why", code, errOut)
	}
}
