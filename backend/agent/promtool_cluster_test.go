package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
)

// promtoolPath is Debian's promtool (testdata/tools/build.sh installs it):
// the test skips without it, and fails when DRIFTDECK_REQUIRE_CLUSTER=1.
func promtoolPath(t *testing.T) string {
	if p := os.Getenv("DRIFTDECK_PROMTOOL"); p != "" {
		return p
	}
	p, err := exec.LookPath("promtool")
	if err == nil {
		return p
	}
	if os.Getenv("DRIFTDECK_REQUIRE_CLUSTER") == "1" {
		t.Fatalf("DRIFTDECK_REQUIRE_CLUSTER=1 but no promtool: %v (testdata/tools/build.sh promtool installs it)", err)
	}
	t.Skipf("no promtool (%v): run testdata/tools/build.sh promtool, or apt-get install prometheus", err)
	return ""
}

var labelRef = regexp.MustCompile(`\{\{ \$labels\.([a-z_]+) \}\}`)

// render fills a rule's annotation the way Prometheus does, for the
// {{ $labels.x }} references the rules use.
func render(s string, labels map[string]string) string {
	return labelRef.ReplaceAllStringFunc(s, func(m string) string { return labels[labelRef.FindStringSubmatch(m)[1]] })
}

// The alert rules of deploy/ pass `promtool check rules`, and `promtool test
// rules` on the series a real agent serves for a stuck unit, a pause that
// expired while no agent leads, and a second context whose cluster is down:
// exactly the alerts that say so fire.
func TestClusterAlertRulesFireOnSeriesScrapedFromAnAgent(t *testing.T) {
	promtool := promtoolPath(t)
	rules, err := filepath.Abs("../../deploy/alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "rules", rules).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}

	w := newWorld(t)
	running := `"sync":{"status":"OutOfSync"},"health":{"status":"Progressing"},"operationState":{"phase":"Running","message":"one or more tasks are running","startedAt":"` + ago(40*time.Minute) + `","operation":{"sync":{"revision":"` + sha + `"}}}`
	w.app("hung", `"automated":{}`, running, `,"operation":{"initiatedBy":{"username":"alice"},"sync":{"revision":"`+sha+`"}}`)
	w.app("frozen", `"automated":{"selfHeal":true}`, `"sync":{"status":"Synced","revision":"`+sha+`"},"health":{"status":"Healthy"}`)
	k := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: w.ns, Name: "frozen"}
	if _, err := w.executor(false).Execute(context.Background(), actions.Request{Kind: actions.Pause, Key: k, Reason: "INC-3", Until: time.Now().Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	// Another replica holds the Lease and never writes: nothing resumes the pause.
	held := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: w.ns, Name: "driftdeck-agent"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("stopped-replica"), LeaseDurationSeconds: ptr.To[int32](3600),
			RenewTime: &metav1.MicroTime{Time: time.Now()}}}
	if _, err := w.kc.Kube.CoordinationV1().Leases(w.ns).Create(context.Background(), held, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A second context whose cluster is down: its watches stay disconnected.
	fl := w.fleet()
	gone, err := kube.NewCluster("gone", &rest.Config{Host: testcluster.RefusedURL(t)}, "default")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	fl.AddRetrying(ctx, gone, w.ns)
	// A root module whose last plan changes something, as the agent's
	// scheduled plans leave it in the model.
	fl.Store.Put(rootmod.Unit(rootmod.Root{Name: "network", Dir: "/src/network", Workspace: "default"}, &model.RootFacts{
		Serial: 3, Plan: &model.RootPlan{ID: "cdf60e93", Serial: 3, Changes: true, Summary: "Plan: 0 to add, 1 to change, 0 to destroy."}}))
	a := w.agentOn(fl, &Election{Context: "test", Client: w.kc.Kube, Namespace: w.ns, Name: "driftdeck-agent", Identity: "this-replica", LeaseDuration: 3 * time.Second})
	start(t, a)
	testcluster.Eventually(t, 20*time.Second, "the agent serving a stuck unit and an expired pause", func() bool {
		return scrapeValue(t, a, "driftdeck_pauses_expired", nil) >= 1 &&
			len(seriesOf(t, a, "driftdeck_watch_connected", map[string]string{"context": "gone"})) == 1 &&
			scrapeValue(t, a, "driftdeck_units_oldest_state_age_seconds", map[string]string{"state": "stuck"}) > 1800
	})

	// Every series the agent serves, held at its scraped value for an hour.
	var series []map[string]string
	names := exported(t)
	for name := range names {
		eachSeries(t, a, name, func(labels map[string]string, v float64) {
			var pairs []string
			for k, v := range labels {
				pairs = append(pairs, fmt.Sprintf("%s=%q", k, v))
			}
			sort.Strings(pairs)
			series = append(series, map[string]string{"series": name + "{" + strings.Join(pairs, ",") + "}", "values": fmt.Sprintf("%g+0x60", v)})
		})
	}
	sort.Slice(series, func(i, j int) bool { return series[i]["series"] < series[j]["series"] })

	var f ruleFile
	raw, err := os.ReadFile(rules)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	unit := map[string]string{"context": "test", "engine": "argocd", "namespace": w.ns}
	firing := map[string]map[string]string{
		"DriftdeckUnitStuck":               unit,
		"DriftdeckFreezeExpiredNotResumed": unit,
		"DriftdeckNoAgentLeads":            {"context": "test"},
		"DriftdeckWatchDisconnected":       {"context": "gone"},
		"DriftdeckRootModuleDrifted":       {"engine": "root", "namespace": "default"},
	}
	var checks []map[string]any
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			labels, known := firing[r.Alert]
			if !known {
				t.Fatalf("no expectation for the rule %s: add one", r.Alert)
			}
			exp := []any{}
			if labels != nil {
				all := map[string]string{}
				for k, v := range labels {
					all[k] = v
				}
				for k, v := range r.Labels {
					all[k] = v
				}
				ann := map[string]string{}
				for k, v := range r.Annotations {
					ann[k] = render(v, all)
				}
				exp = append(exp, map[string]any{"exp_labels": all, "exp_annotations": ann})
			}
			checks = append(checks, map[string]any{"eval_time": "30m", "alertname": r.Alert, "exp_alerts": exp})
		}
	}
	test := map[string]any{
		"rule_files":          []string{rules},
		"evaluation_interval": "1m",
		"tests":               []any{map[string]any{"interval": "1m", "input_series": series, "alert_rule_test": checks}},
	}
	out, err := yaml.Marshal(test)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "alerts_test.yaml")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d series scraped from the agent", len(series))
	if res, err := exec.Command(promtool, "test", "rules", path).CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s\ninput:\n%s", err, res, out)
	}
}
