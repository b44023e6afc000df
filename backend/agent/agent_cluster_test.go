package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/prometheus/common/expfmt"
	prommodel "github.com/prometheus/common/model"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// eachSeries reads /metrics of a running agent with the Prometheus text
// parser and calls f with the labels and value of each series of a metric.
func eachSeries(t *testing.T, a *Agent, name string, f func(labels map[string]string, value float64)) {
	t.Helper()
	resp, err := http.Get("http://" + a.Addr("metrics").String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(prommodel.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics is not the Prometheus text format: %v", err)
	}
	if fams[name] == nil {
		return // not synced yet
	}
	for _, m := range fams[name].Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		f(labels, m.GetGauge().GetValue()+m.GetCounter().GetValue())
	}
}

// scrape sums driftdeck_units per state for one namespace.
func scrape(t *testing.T, a *Agent, ns string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	eachSeries(t, a, "driftdeck_units", func(labels map[string]string, v float64) {
		if labels["namespace"] == ns {
			out[labels["state"]] += v
		}
	})
	return out
}

// scrapeValue is the sum of a metric's series that carry the labels given.
func scrapeValue(t *testing.T, a *Agent, name string, want map[string]string) float64 {
	t.Helper()
	var sum float64
	eachSeries(t, a, name, func(labels map[string]string, v float64) {
		for k, w := range want {
			if labels[k] != w {
				return
			}
		}
		sum += v
	})
	return sum
}

func TestClusterMetricsCountTheFixturesStates(t *testing.T) {
	w := newWorld(t)
	running := `"sync":{"status":"OutOfSync"},"health":{"status":"Progressing"},"operationState":{"phase":"Running","message":"one or more tasks are running","startedAt":"` + ago(40*time.Minute) + `","operation":{"sync":{"revision":"` + sha + `"}}}`
	w.app("hung", `"automated":{}`, running, `,"operation":{"initiatedBy":{"username":"alice"},"sync":{"revision":"`+sha+`"}}`)
	w.app("broken", `"automated":{}`, `"sync":{"status":"Synced"},"health":{"status":"Degraded"},"operationState":{"phase":"Failed","message":"one or more objects failed to apply","startedAt":"`+ago(3*time.Minute)+`","finishedAt":"`+ago(2*time.Minute)+`","operation":{"sync":{}}}`)
	w.app("waiting", ``, `"sync":{"status":"OutOfSync","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	w.app("fine", `"automated":{"prune":true}`, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	w.app("held", `"automated":{"selfHeal":true}`, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	w.app("frozen", `"automated":{"selfHeal":true}`, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	exec := w.executor(false)
	key := func(n string) model.Key {
		return model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: w.ns, Name: n}
	}
	if _, err := exec.Execute(context.Background(), actions.Request{Kind: actions.Pause, Key: key("held"), Reason: "INC-1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.Execute(context.Background(), actions.Request{Kind: actions.Pause, Key: key("frozen"), Reason: "INC-2", Until: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}

	a := w.agent(nil)
	start(t, a)
	want := map[string]float64{"stuck": 1, "failed": 1, "awaiting approval": 1, "drifted": 2, "paused": 1, "frozen": 1}
	var got map[string]float64
	eventually(t, 20*time.Second, "the agent's metrics matching the fixtures", func() bool {
		got = scrape(t, a, w.ns)
		return reflect.DeepEqual(got, want)
	})
	t.Logf("driftdeck_units of the fixtures: %v", got)
	resp, err := http.Get("http://" + a.Addr("probes").String() + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("/readyz after the first sync: %v %v", resp, err)
	}
}

func TestClusterAnExpiredPauseIsResumedExactlyAndAudited(t *testing.T) {
	w := newWorld(t)
	policy := `"automated":{"prune":true,"selfHeal":true,"allowEmpty":false},"syncOptions":["CreateNamespace=true"]`
	w.app("web", policy, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	before := w.get("web").Object["spec"].(map[string]any)["syncPolicy"]
	k := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: w.ns, Name: "web"}
	if _, err := w.executor(false).Execute(context.Background(), actions.Request{Kind: actions.Pause, Key: k, Reason: "INC-7: hotfix in place", Until: time.Now().Add(2 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	if p := w.get("web").Object["spec"].(map[string]any)["syncPolicy"]; reflect.DeepEqual(p, before) {
		t.Fatal("the pause changed nothing")
	}
	start(t, w.agent(nil))
	eventually(t, 20*time.Second, "the expired pause's resume", func() bool {
		return w.get("web").GetAnnotations()["driftdeck.io/paused-by"] == ""
	})
	after := w.get("web").Object["spec"].(map[string]any)["syncPolicy"]
	if !reflect.DeepEqual(normalize(t, after), normalize(t, before)) {
		t.Errorf("the sync policy after the resume differs from before the pause:\nbefore %s\nafter  %s", jsonOf(t, before), jsonOf(t, after))
	}
	// The audit line and the Event follow the write: wait for them too.
	var resumes, msgs []string
	eventually(t, 20*time.Second, "the resume's audit line and Event", func() bool {
		resumes, msgs = nil, nil
		for _, e := range w.auditLines() {
			if e.Action == "resume" {
				resumes = append(resumes, e.Outcome+" "+e.Reason)
			}
		}
		for _, e := range w.events("web") {
			if e.Reason == "DriftdeckResume" {
				msgs = append(msgs, e.Message)
			}
		}
		return len(resumes) > 0 && len(msgs) > 0
	})
	if want := []string{"done expired pause: INC-7: hotfix in place"}; !reflect.DeepEqual(resumes, want) {
		t.Errorf("audit lines of the resume: %q, want %q", resumes, want)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "expired pause: INC-7: hotfix in place") {
		t.Errorf("Events of the resume: %q", msgs)
	}
}

func TestClusterTwoAgentsHandOverTheLeaseAndWriteEachUnitOnce(t *testing.T) {
	w := newWorld(t)
	const n = 4
	names := []string{"a", "b", "c", "d"}
	for _, name := range names {
		w.app(name, `"automated":{"prune":true}`, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	}
	if _, err := w.kc.Kube.CoreV1().Namespaces().Get(context.Background(), w.ns, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	lease := func(id string) *Election {
		return &Election{Context: "test", Client: w.kc.Kube, Namespace: w.ns, Name: "driftdeck-agent", Identity: id, LeaseDuration: 3 * time.Second}
	}
	first, second := w.agent(lease("first")), w.agent(lease("second"))
	stopFirst := start(t, first)
	eventually(t, 20*time.Second, "the first agent leading", first.IsLeader)
	start(t, second)
	time.Sleep(time.Second)
	if second.IsLeader() {
		t.Fatal("two agents lead at once")
	}
	if p := Running(context.Background(), w.kc.Kube, w.ns, "driftdeck-agent", time.Now()); !p.Running || p.Holder != "first" {
		t.Errorf("Running while the first agent holds the Lease: %+v", p)
	}
	exec := w.executor(false)
	for _, name := range names[:n/2] {
		k := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: w.ns, Name: name}
		if _, err := exec.Execute(context.Background(), actions.Request{Kind: actions.Pause, Key: k, Reason: "INC-9", Until: time.Now().Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 20*time.Second, "the leader resuming the first pauses", func() bool {
		return w.get(names[0]).GetAnnotations()["driftdeck.io/paused-by"] == "" && w.get(names[1]).GetAnnotations()["driftdeck.io/paused-by"] == ""
	})
	// Pauses expiring right at the handover.
	for _, name := range names[n/2:] {
		k := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: w.ns, Name: name}
		if _, err := exec.Execute(context.Background(), actions.Request{Kind: actions.Pause, Key: k, Reason: "INC-9", Until: time.Now().Add(500 * time.Millisecond)}); err != nil {
			t.Fatal(err)
		}
	}
	killed := time.Now()
	stopFirst()
	eventually(t, 3*time.Second, "the second agent taking over within the lease duration", second.IsLeader)
	t.Logf("handover took %s", time.Since(killed))
	eventually(t, 20*time.Second, "the new leader resuming the other pauses", func() bool {
		return w.get(names[2]).GetAnnotations()["driftdeck.io/paused-by"] == "" && w.get(names[3]).GetAnnotations()["driftdeck.io/paused-by"] == ""
	})
	time.Sleep(time.Second) // a double write would have happened by now
	per := map[string]int{}
	for _, e := range w.auditLines() {
		if e.Action == "resume" && e.Outcome == "done" {
			per[e.Unit]++
		}
	}
	for _, name := range names {
		if got := per["argocd/"+w.ns+"/"+name]; got != 1 {
			t.Errorf("%s was resumed %d times, want once (%v)", name, got, per)
		}
		ev := 0
		for _, e := range w.events(name) {
			if e.Reason == "DriftdeckResume" {
				ev++
			}
		}
		if ev != 1 {
			t.Errorf("%s has %d resume Events, want 1", name, ev)
		}
	}
	if p := Running(context.Background(), w.kc.Kube, w.ns, "driftdeck-agent", time.Now()); !p.Running || p.Holder != "second" {
		t.Errorf("Running after the handover: %+v", p)
	}
}

func normalize(t *testing.T, v any) any {
	var out any
	if err := json.Unmarshal([]byte(jsonOf(t, v)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonOf(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
