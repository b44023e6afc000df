package agent

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/yaml"

	"github.com/driftdeck/driftdeck/backend/metrics"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

type ruleFile struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Expr        string            `json:"expr"`
			For         string            `json:"for"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"rules"`
	} `json:"groups"`
}

var (
	fqName     = regexp.MustCompile(`fqName: "([^"]+)"`)
	labelNames = regexp.MustCompile(`variableLabels: \{([^}]*)\}`)
	metricRef  = regexp.MustCompile(`\bdriftdeck_[a-z_]+`)
	selector   = regexp.MustCompile(`(driftdeck_[a-z_]+)\{([^}]*)\}`)
	byClause   = regexp.MustCompile(`by \(([^)]*)\)`)
)

// exported lists every series name the agent serves, with its labels.
func exported(t *testing.T) map[string]map[string]bool {
	a := &Agent{Store: store.New(model.DefaultThresholds)}
	a.registry() // creates the agent's own counters
	ch := make(chan *prometheus.Desc, 64)
	go func() {
		(&metrics.Collector{}).Describe(ch)
		a.resumes.Describe(ch)
		a.passes.Describe(ch)
		a.leader.Describe(ch)
		close(ch)
	}()
	out := map[string]map[string]bool{"driftdeck_agent_ready": {}}
	for d := range ch {
		s := d.String()
		m := fqName.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("unreadable descriptor %s", s)
		}
		labels := map[string]bool{}
		if l := labelNames.FindStringSubmatch(s); l != nil {
			for _, n := range strings.Split(l[1], ",") {
				labels[strings.Trim(strings.TrimSpace(n), `"{}`)] = true
			}
		}
		out[m[1]] = labels
	}
	return out
}

// TestAlertRulesUseOnlyWhatTheAgentExports parses deploy/alerts.yaml and
// checks each rule against the series the agent serves: known names, known
// labels in selectors and by clauses, balanced brackets, a duration for
// "for". promtool checks them further when it is installed.
func TestAlertRulesUseOnlyWhatTheAgentExports(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	if err := yaml.UnmarshalStrict(raw, &f); err != nil {
		t.Fatalf("deploy/alerts.yaml: %v", err)
	}
	series := exported(t)
	seen := map[string]bool{}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			seen[r.Alert] = true
			if r.Alert == "" || r.Expr == "" || r.Annotations["summary"] == "" {
				t.Errorf("rule %+v lacks alert, expr or summary", r)
			}
			if _, err := time.ParseDuration(r.For); err != nil {
				t.Errorf("%s: for %q: %v", r.Alert, r.For, err)
			}
			if strings.Count(r.Expr, "(") != strings.Count(r.Expr, ")") || strings.Count(r.Expr, "{") != strings.Count(r.Expr, "}") {
				t.Errorf("%s: unbalanced brackets in %q", r.Alert, r.Expr)
			}
			for _, name := range metricRef.FindAllString(r.Expr, -1) {
				if _, ok := series[name]; !ok {
					t.Errorf("%s: %s is not a series the agent serves", r.Alert, name)
				}
			}
			for _, m := range selector.FindAllStringSubmatch(r.Expr, -1) {
				for _, matcher := range strings.Split(m[2], ",") {
					label, _, _ := strings.Cut(strings.TrimSpace(matcher), "=")
					if !series[m[1]][label] {
						t.Errorf("%s: %s has no label %q", r.Alert, m[1], label)
					}
				}
			}
			for _, m := range byClause.FindAllStringSubmatch(r.Expr, -1) {
				for _, l := range strings.Split(m[1], ",") {
					l = strings.TrimSpace(l)
					found := false
					for _, name := range metricRef.FindAllString(r.Expr, -1) {
						found = found || series[name][l]
					}
					if !found {
						t.Errorf("%s: by (%s): no series of the rule has that label", r.Alert, l)
					}
				}
			}
		}
	}
	for _, want := range []string{"DriftdeckUnitStuck", "DriftdeckFreezeExpiredNotResumed", "DriftdeckWatchDisconnected", "DriftdeckRootModuleDrifted"} {
		if !seen[want] {
			t.Errorf("deploy/alerts.yaml lacks %s", want)
		}
	}
	if promtool, err := exec.LookPath("promtool"); err == nil {
		if out, err := exec.Command(promtool, "check", "rules", "../../deploy/alerts.yaml").CombinedOutput(); err != nil {
			t.Errorf("promtool check rules: %v\n%s", err, out)
		}
	}
}
