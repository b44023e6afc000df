package cli

import (
	"encoding/json"
	"slices"
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
	// A change waiting for a person's yes needs a human too.
	for _, unit := range []string{"argocd/argocd/kafka", "pulumi/infra/edge-cdn", "terraform/flux-system/eks-cluster", "terraform/flux-system/vpc-network"} {
		if f := byUnit[unit]; f.State != "awaiting approval" || f.Command == "" {
			t.Errorf("%s: %+v, want it awaiting approval with a command", unit, f)
		}
	}
	// Every sync of an invalid manifest fails the same way: the fix is in
	// the source, not another sync.
	if f := byUnit["argocd/team-payments/payments-api"]; f.State != "failed" || f.Command != "" || !strings.Contains(f.Hint, "the cause is in the source") {
		t.Errorf("the app failing on an invalid manifest: %+v, want no command and a hint to the source", f)
	}
	// Every driftdeck command doctor prints runs as printed, split into
	// words as sh does (with --yes, there being no terminal here), on a
	// demo in the same state.
	for _, f := range findings {
		if f.Forbidden != "" || !strings.HasPrefix(f.Command, "driftdeck ") {
			continue
		}
		words := shellWords(t, f.Command)
		for len(words) > 0 {
			step := words
			if i := slices.Index(words, "&&"); i >= 0 {
				step, words = words[:i], words[i+1:]
			} else {
				words = nil
			}
			if step[0] != "driftdeck" || !slices.Contains(step, "--reason") {
				t.Errorf("%s: %q is not a driftdeck command with a --reason", f.Unit, step)
				continue
			}
			args := append(append([]string{"--demo"}, step[1:]...), "--yes")
			if code, out, stderr := run(t, args...); code != 0 {
				t.Errorf("%s: driftdeck %q: exit %d\n%s%s", f.Unit, args, code, out, stderr)
			}
		}
	}
	if code, out, _ := run(t, "--demo", "doctor"); !strings.Contains(out, "fix:   driftdeck terminate argocd/argocd/search-indexer --reason 'fix from driftdeck doctor'") || code != exitFailed {
		t.Errorf("doctor's text report: exit %d\n%s", code, out)
	}
}

// A namespace where nothing needs a human: exit 0, and the report says so.
func TestDoctorExits0WhenNothingNeedsAHuman(t *testing.T) {
	isolate(t)
	code, out, stderr := run(t, "--demo", "doctor", "-n", "platform-infra")
	if code != 0 || strings.TrimSpace(out) != "nothing needs a human" {
		t.Errorf("doctor on a healthy namespace: exit %d, want 0\n%s%s", code, out, stderr)
	}
	code, out, _ = run(t, "--demo", "doctor", "-n", "platform-infra", "-o", "json")
	if code != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("doctor -o json on a healthy namespace: exit %d, want 0 and []\n%s", code, out)
	}
}
