package agent

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/policy"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// One context nothing answers must not hold back the others: the reachable
// context's expired pause is resumed and its policies run, with and without
// leader election, and /readyz says which context is not served.
func TestClusterAnUnreachableContextHoldsBackOnlyItself(t *testing.T) {
	w := newWorld(t)
	gone, err := kube.NewCluster("gone", &rest.Config{Host: testcluster.RefusedURL(t)}, "default")
	if err != nil {
		t.Fatal(err)
	}
	for _, elect := range []bool{false, true} {
		name := map[bool]string{false: "single-replica", true: "leader-elect"}[elect]
		t.Run(name, func(t *testing.T) {
			paused, hooked := "paused-"+name, "hooked-"+name
			w.app(paused, `"automated":{"selfHeal":true}`, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
			w.app(hooked, `"automated":{}`, `"sync":{"status":"OutOfSync","revision":"`+sha+`"},"health":{"status":"Progressing"},
				"operationState":{"phase":"Running","message":"waiting for completion of hook batch/Job/db-migrate","startedAt":"`+ago(20*time.Minute)+`","operation":{"sync":{"revision":"`+sha+`"}}}`,
				`,"operation":{"initiatedBy":{"automated":true},"sync":{"revision":"`+sha+`"}}`)
			k := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: w.ns, Name: paused}
			if _, err := w.executor(false).Execute(context.Background(), actions.Request{Kind: actions.Pause, Key: k, Reason: "INC-9", Until: time.Now().Add(time.Second)}); err != nil {
				t.Fatal(err)
			}

			f := w.fleet()
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			f.AddRetrying(ctx, gone, "")
			exec := w.executor(false)
			a := &Agent{Store: f.Store, Exec: exec, Contexts: []string{"test", "gone"}, Interval: 200 * time.Millisecond, MetricsAddr: "127.0.0.1:0", ProbeAddr: "127.0.0.1:0",
				Policies: &policy.Engine{Rules: []policy.Rule{{Name: "unstick-hooks", When: policy.ArgoHookStuck, After: 10 * time.Minute, MaxAttempts: 1, MaxPerHour: 5}}, Exec: exec}}
			if elect {
				for _, c := range []*kube.Cluster{w.kc, gone} {
					a.Elections = append(a.Elections, &Election{Context: c.Context, Client: c.Kube, Namespace: w.ns, Name: "driftdeck-agent-" + name, Identity: "this-replica", LeaseDuration: 3 * time.Second})
				}
			}
			start(t, a)

			testcluster.Eventually(t, 30*time.Second, "the reachable context's expired pause resumed", func() bool {
				return w.get(paused).GetAnnotations()["driftdeck.io/paused-by"] == ""
			})
			testcluster.Eventually(t, 30*time.Second, "the reachable context's policy terminating the hook", func() bool {
				phase, _, _ := unstructured.NestedString(w.get(hooked).Object, "status", "operationState", "phase")
				return phase == "Terminating"
			})
			resp, err := http.Get("http://" + a.Addr("probes").String() + "/readyz")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "not served: context gone") || strings.Contains(string(body), "context test") {
				t.Errorf("/readyz with one context down: %d %q; want 200 naming only the unreachable context", resp.StatusCode, body)
			}
			if got := scrapeValue(t, a, "driftdeck_agent_ready", nil); got != 0 {
				t.Errorf("driftdeck_agent_ready = %v while a context is unreachable, want 0", got)
			}
			if elect && a.Leads("gone") {
				t.Error("the agent leads the unreachable context")
			}
		})
	}
}
