package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/prometheus/common/expfmt"
	prommodel "github.com/prometheus/common/model"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/flux"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/tofu"
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

// scrape is driftdeck_units of one namespace by "engine/state".
func scrape(t *testing.T, a *Agent, ns string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	eachSeries(t, a, "driftdeck_units", func(labels map[string]string, v float64) {
		if labels["namespace"] == ns {
			out[labels["engine"]+"/"+labels["state"]] += v
		}
	})
	return out
}

// scrapeValue is the sum of a metric's series that carry the labels given.
func scrapeValue(t *testing.T, a *Agent, name string, want map[string]string) float64 {
	t.Helper()
	var sum float64
	for _, v := range seriesOf(t, a, name, want) {
		sum += v
	}
	return sum
}

// seriesOf is the values of a metric's series that carry the labels given.
func seriesOf(t *testing.T, a *Agent, name string, want map[string]string) []float64 {
	t.Helper()
	var out []float64
	eachSeries(t, a, name, func(labels map[string]string, v float64) {
		for k, w := range want {
			if labels[k] != w {
				return
			}
		}
		out = append(out, v)
	})
	return out
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
	// Queued by Argo CD until the project's sync window opens.
	w.app("windowed", `"automated":{}`, `"sync":{"status":"OutOfSync"},"health":{"status":"Healthy"},"operationState":{"phase":"Running","message":"Sync operation blocked by sync window","startedAt":"`+ago(5*time.Minute)+`","operation":{"sync":{"revision":"`+sha+`"}}}`, `,"operation":{"initiatedBy":{"automated":true},"sync":{"revision":"`+sha+`"}}`)
	w.object(pulumiop.Stacks, `{"apiVersion":"pulumi.com/v1","kind":"Stack","metadata":{"name":"net"},"spec":{"stack":"org/net/prod","projectRepo":"https://git.example.com/infra.git","commit":"`+sha+`"}}`,
		`{"lastUpdate":{"state":"failed"},"conditions":[`+cond("Ready", "False", "NotReadyStalled", "reconciliation is stalled", 10*time.Minute)+`,`+cond("Stalled", "True", "UpdateFailed", "up failed 3 times", 10*time.Minute)+`]}`)
	ks := `{"apiVersion":"kustomize.toolkit.fluxcd.io/v1","kind":"Kustomization","metadata":{"name":%q},"spec":{"interval":"10m","prune":true,"path":"./apps","sourceRef":{"kind":"GitRepository","name":"apps"}%s}}`
	w.object(flux.Kustomizations[0], fmt.Sprintf(ks, "build-failing", ""), `{"lastAttemptedRevision":"main@sha1:`+sha+`","conditions":[`+
		cond("Ready", "False", "BuildFailed", "kustomize build failed: no such file", time.Minute)+`,`+cond("Reconciling", "True", "ProgressingWithRetry", "kustomize build failed", 40*time.Minute)+`]}`)
	w.object(flux.Kustomizations[0], fmt.Sprintf(ks, "suspended", `,"suspend":true`), `{"conditions":[`+cond("Ready", "True", "ReconciliationSucceeded", "Applied revision", time.Hour)+`]}`)
	w.object(flux.HelmReleases[0], `{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"exhausted"},"spec":{"interval":"30m","chart":{"spec":{"chart":"podinfo","sourceRef":{"kind":"HelmRepository","name":"podinfo"}}},"upgrade":{"remediation":{"retries":2}}}}`,
		`{"lastAttemptedRevision":"6.8.0","lastAttemptedReleaseAction":"upgrade","upgradeFailures":2,"failures":3,"conditions":[`+
			cond("Ready", "False", "UpgradeFailed", "Helm upgrade failed", time.Minute)+`,`+cond("Stalled", "True", "RetriesExceeded", "Failed to upgrade after 3 attempt(s)", time.Minute)+`]}`)
	tf := `{"apiVersion":"infra.contrib.fluxcd.io/v1alpha2","kind":"Terraform","metadata":{"name":%q},"spec":{"interval":"1h","path":"./eks","sourceRef":{"kind":"GitRepository","name":"infra"}}}`
	w.object(tofu.Terraforms[0], fmt.Sprintf(tf, "eks"), `{"lastAttemptedRevision":"main@sha1:`+sha+`","lastPlannedRevision":"main@sha1:`+sha+`","lastPlannedGeneration":1,"lastPlanAt":"`+ago(time.Minute)+`","plan":{"pending":"plan-main-2222222222"},"conditions":[`+
		cond("Ready", "Unknown", "TerraformPlannedWithChanges", "Plan generated", time.Minute)+`]}`)
	w.object(tofu.Terraforms[0], fmt.Sprintf(tf, "locked"), `{"lock":{"pending":"f2ab9c3e-1d4b-7a2c-9e11-5b6c7d8e9f00"},"conditions":[`+
		cond("Ready", "False", "LockHeld", "Error acquiring the state lock", time.Minute)+`,`+cond("StateLocked", "True", "LockHeld", "Error acquiring the state lock", time.Minute)+`]}`)
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
	// A unit whose desired revision is not applied (the failing build, the
	// failed Stack, the plan awaiting approval) counts as drifted too.
	want := map[string]float64{
		"argocd/stuck": 1, "argocd/failed": 1, "argocd/awaiting approval": 1, "argocd/drifted": 3, "argocd/paused": 1, "argocd/frozen": 1,
		"argocd/blocked by window": 1,
		"pulumi/stuck":             1, "pulumi/drifted": 1,
		"kustomization/stuck": 1, "kustomization/drifted": 1, "kustomization/suspended": 1,
		"helmrelease/stuck":           1,
		"terraform/awaiting approval": 1, "terraform/drifted": 1, "terraform/stuck": 1,
	}
	var got map[string]float64
	deadline := time.Now().Add(30 * time.Second)
	for got = scrape(t, a, w.ns); !reflect.DeepEqual(got, want); got = scrape(t, a, w.ns) {
		if time.Now().After(deadline) {
			t.Fatalf("driftdeck_units of the fixtures by engine/state:\n got  %v\n want %v", got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("driftdeck_units of the fixtures: %v", got)
	resp, err := http.Get("http://" + a.Addr("probes").String() + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("/readyz after the first sync: %v %v", resp, err)
	}
}

// A pause alice made, once expired, is ended by the agent under the agent's
// own identity (here the cluster administrator's), quoting her reason, and
// restores exactly the policy her pause recorded.
func TestClusterAnExpiredPauseIsResumedExactlyAndAudited(t *testing.T) {
	w := newWorld(t)
	policy := `"automated":{"prune":true,"selfHeal":true,"allowEmpty":false},"syncOptions":["CreateNamespace=true"]`
	w.app("web", policy, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	before := w.get("web").Object["spec"].(map[string]any)["syncPolicy"]
	k := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: w.ns, Name: "web"}
	paused := w.pauseAs("alice", k, "INC-7: hotfix in place", 2*time.Second)
	if p := w.get("web").Object["spec"].(map[string]any)["syncPolicy"]; reflect.DeepEqual(p, before) {
		t.Fatal("the pause changed nothing")
	}
	admin, err := w.kc.Access.Identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	start(t, w.agent(nil))
	testcluster.Eventually(t, 20*time.Second, "the expired pause's resume", func() bool {
		return w.get("web").GetAnnotations()["driftdeck.io/paused-by"] == ""
	})
	w.checkResumedBy(admin, k, paused, before)
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
	testcluster.Eventually(t, 20*time.Second, "the first agent leading", first.IsLeader)
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
	testcluster.Eventually(t, 20*time.Second, "the leader resuming the first pauses", func() bool {
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
	testcluster.Eventually(t, 3*time.Second, "the second agent taking over within the lease duration", second.IsLeader)
	t.Logf("handover took %s", time.Since(killed))
	testcluster.Eventually(t, 20*time.Second, "the new leader resuming the other pauses", func() bool {
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
