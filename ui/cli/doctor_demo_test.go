package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDoctorOnTheDemoNamesARunnableFixForEveryStuckUnit(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "doctor", "-o", "json")
	if code != exitFailed || stderr != "" {
		t.Fatalf("doctor on the demo: exit %d, want 1 (units need a human), stderr %q", code, stderr)
	}
	var findings []findingJSON
	if err := json.Unmarshal([]byte(out), &findings); err != nil {
		t.Fatalf("doctor -o json is not JSON: %v\n%s", err, out)
	}
	byUnit := map[string]findingJSON{}
	for _, f := range findings {
		byUnit[f.Unit] = f
	}
	for _, unit := range []string{"argocd/argocd/search-indexer", "argocd/argocd/velero", "pulumi/infra/network-prod", "pulumi/infra/dns-zones", "pulumi/finance/cost-reports"} {
		f, ok := byUnit[unit]
		if !ok || f.State != "stuck" || f.Command == "" {
			t.Errorf("%s: %+v, want it stuck with a command", unit, f)
		}
	}
	// Every driftdeck command doctor prints runs as printed (with --yes,
	// there being no terminal here) on a demo in the same state.
	for _, f := range findings {
		if f.Forbidden != "" || !strings.HasPrefix(f.Command, "driftdeck ") {
			continue
		}
		for _, step := range strings.Split(f.Command, " && ") {
			words, reason, ok := strings.Cut(strings.TrimPrefix(step, "driftdeck "), ` --reason "`)
			if !ok {
				t.Errorf("%s: %q carries no --reason", f.Unit, step)
				continue
			}
			args := append(append([]string{"--demo"}, strings.Fields(words)...), "--reason", strings.TrimSuffix(reason, `"`), "--yes")
			if code, out, stderr := run(t, args...); code != 0 {
				t.Errorf("%s: driftdeck %s: exit %d\n%s%s", f.Unit, strings.Join(args, " "), code, out, stderr)
			}
		}
	}
	if code, out, _ := run(t, "--demo", "doctor"); !strings.Contains(out, "fix:   driftdeck terminate argocd/argocd/search-indexer --reason") || code != exitFailed {
		t.Errorf("doctor's text report: exit %d\n%s", code, out)
	}
}
