package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

func createJSON(t *testing.T, dyn dynamic.Interface, ns, text string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(text), &u.Object); err != nil {
		t.Fatal(err)
	}
	u.SetNamespace(ns)
	gvr := argocd.Applications
	switch u.GetKind() {
	case "Stack":
		gvr = pulumiop.Stacks
	case "ApplicationSet":
		gvr = argocd.ApplicationSets
	}
	status := u.Object["status"]
	out, err := dyn.Resource(gvr).Namespace(ns).Create(context.Background(), u, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gvr != argocd.Applications && status != nil { // status is a subresource
		out.Object["status"] = status
		if _, err := dyn.Resource(gvr).Namespace(ns).UpdateStatus(context.Background(), out, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestClusterStatusJSONListsEveryUnit(t *testing.T) {
	c := testcluster.Shared(t)
	dyn := dynamic.NewForConfigOrDie(c.Config())
	ns := c.Namespace(t)
	createJSON(t, dyn, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"web"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"web"},"destination":{"server":"https://kubernetes.default.svc","namespace":"web"},"syncPolicy":{"automated":{}}},
		"status":{"sync":{"status":"OutOfSync"},"health":{"status":"Degraded"},"operationState":{"phase":"Failed","message":"one or more objects failed to apply","startedAt":"2026-11-29T10:00:00Z","finishedAt":"2026-11-29T10:01:00Z","operation":{"sync":{}}}}}`)
	createJSON(t, dyn, ns, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"api"},
		"spec":{"project":"default","source":{"repoURL":"https://git.example.com/a.git","path":"api"},"destination":{"server":"https://kubernetes.default.svc","namespace":"api"}},
		"status":{"sync":{"status":"Synced"},"health":{"status":"Healthy"}}}`)
	createJSON(t, dyn, ns, `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"net"},
		"spec":{"stack":"org/net/prod","projectRepo":"https://git.example.com/i.git","branch":"main"},
		"status":{"conditions":[{"type":"Ready","status":"False","reason":"NotReadyStalled","message":"","lastTransitionTime":"2026-11-29T10:00:00Z"},
			{"type":"Stalled","status":"True","reason":"SourceUnavailable","message":"no commits found for ref","lastTransitionTime":"2026-11-29T10:00:00Z"}]}}`)

	var out, errOut bytes.Buffer
	code := Main([]string{"status", "-A", "-o", "json", "--kubeconfig", testcluster.Kubeconfig(t, c.Config(), "kind-test")}, strings.NewReader(""), &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var recs []unitRecord
	if err := json.Unmarshal(out.Bytes(), &recs); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := map[string]unitRecord{}
	for _, r := range recs {
		got[r.Unit] = r
	}
	for unit, want := range map[string]struct{ run, reason string }{
		"argocd/" + ns + "/web": {"failed", "one or more objects failed to apply"},
		"argocd/" + ns + "/api": {"idle", ""},
		"pulumi/" + ns + "/net": {"stuck", "SourceUnavailable"},
	} {
		r, ok := got[unit]
		if !ok {
			t.Errorf("%s missing from %d records", unit, len(recs))
			continue
		}
		if r.Run != want.run || !strings.Contains(r.Reason, want.reason) || r.Context != "kind-test" || r.Engine == "" {
			t.Errorf("%s: %+v, want run %q with reason %q", unit, r, want.run, want.reason)
		}
	}
}

func TestClusterStatusUnreachableExitsNonZero(t *testing.T) {
	c := testcluster.Shared(t)
	cfg := c.Config()
	cfg.Host = "https://127.0.0.1:1" // nothing listens there
	var out, errOut bytes.Buffer
	code := Main([]string{"status", "--kubeconfig", testcluster.Kubeconfig(t, cfg, "gone"), "--request-timeout", "5s"}, strings.NewReader(""), &out, &errOut)
	if code != 3 || !strings.Contains(errOut.String(), "cluster unreachable") {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
}

func TestClusterStatusForbiddenExitsNonZero(t *testing.T) {
	c := testcluster.Shared(t)
	cfg := c.UserConfig(t, "nobody", nil, "")
	var out, errOut bytes.Buffer
	code := Main([]string{"status", "--kubeconfig", testcluster.Kubeconfig(t, cfg, "limited")}, strings.NewReader(""), &out, &errOut)
	if code != 4 || !strings.Contains(errOut.String(), "forbidden") {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
}
