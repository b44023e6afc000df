package agent

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// get is the status and body of an agent's endpoint.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// An agent whose identity may read Applications in one namespace and
// nothing else is ready, and /readyz and /metrics say what it does not read.
func TestClusterAnAgentWithPartialRightsIsReadyAndSaysWhatItMayNotRead(t *testing.T) {
	w := newWorld(t)
	w.app("web", `"automated":{}`, `"sync":{"status":"Synced"},"health":{"status":"Healthy"}`)
	cfg := w.c.UserConfig(t, "agent-tenant", []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"}, Resources: []string{"applications"}, Verbs: []string{"get", "list", "watch"}}}, w.ns)
	kc, err := kube.NewCluster("test", cfg, w.ns)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f := fleet.New(fleet.Options{})
	if err := f.Add(ctx, kc, w.ns); err != nil {
		t.Fatal(err)
	}
	a := &Agent{Store: f.Store, Exec: w.executor(false), Contexts: []string{"test"}, Interval: 200 * time.Millisecond, MetricsAddr: "127.0.0.1:0", ProbeAddr: "127.0.0.1:0"}
	start(t, a)
	var code int
	var body string
	testcluster.Eventually(t, 30*time.Second, "/readyz to be 200", func() bool {
		code, body = get(t, "http://"+a.Addr("probes").String()+"/readyz")
		return code == http.StatusOK
	})
	if !strings.Contains(body, "context test: not shown: Pulumi Stacks") || !strings.Contains(body, "in "+w.ns+": RBAC") {
		t.Errorf("/readyz does not say what is not read:\n%s", body)
	}
	_, metrics := get(t, "http://"+a.Addr("metrics").String()+"/metrics")
	want := `driftdeck_watch_unreadable{context="test",namespace="` + w.ns + `",what="Pulumi Stacks"} 1`
	if !strings.Contains(metrics, want) {
		t.Errorf("/metrics lacks %s:\n%s", want, grepLines(metrics, "unreadable"))
	}
	if !strings.Contains(metrics, `driftdeck_watch_synced{context="test"} 1`) || !strings.Contains(metrics, `driftdeck_watch_connected{context="test"} 1`) {
		t.Errorf("/metrics does not read the context as connected and synced:\n%s", grepLines(metrics, "driftdeck_watch_"))
	}
	if u := f.Store.Snapshot(); len(u) != 1 || u[0].Key.Name != "web" {
		t.Errorf("the agent's model holds %d units, want the Application web", len(u))
	}
}

// grepLines are the lines of s holding sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
