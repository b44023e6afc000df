package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/cmdline"
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
	byUnit := map[string]findingJSON{} // a unit's first finding: its state's
	killed := false
	for _, f := range findings {
		if _, seen := byUnit[f.Unit]; !seen {
			byUnit[f.Unit] = f
		}
		// The run that left network-prod's lock held died for memory.
		killed = killed || f.Unit == "pulumi/infra/network-prod" && f.State == "killed for memory" && strings.Contains(f.Cause, "limit 512Mi")
	}
	if !killed {
		t.Error("network-prod's workspace killed for memory is not named")
	}
	for _, unit := range []string{"argocd/argocd/search-indexer", "argocd/argocd/velero", "pulumi/infra/network-prod", "pulumi/finance/cost-reports"} {
		f, ok := byUnit[unit]
		if !ok || f.State != "stuck" || f.Command == "" {
			t.Errorf("%s: %+v, want it stuck with a command", unit, f)
		}
	}
	// The wedged Stack's fix is a kubectl patch of its status, and kubectl
	// cannot reach the demo's in-process control plane: no command (pasted,
	// it would patch the current kubeconfig context), a hint that says so.
	if f := byUnit["pulumi/infra/dns-zones"]; f.State != "stuck" || f.Command != "" || !strings.Contains(f.Hint, "out of kubectl's reach") {
		t.Errorf("the wedged Stack on the demo: %+v, want it stuck, no command, and why", f)
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
	// Every command doctor prints, in a fix or in a hint, names the demo:
	// pasted without --demo it would act on the current kubeconfig context.
	for _, f := range findings {
		for _, c := range append(backquoted(f.Hint), f.Command) {
			if strings.HasPrefix(c, "driftdeck ") && !strings.HasPrefix(c, "driftdeck --demo ") || strings.HasPrefix(c, "kubectl ") {
				t.Errorf("%s: %q does not run on the demo", f.Unit, c)
			}
		}
	}
	// Every driftdeck command doctor prints runs as printed, split into
	// words as sh does (with --yes, there being no terminal here), on a
	// demo in the same state, and its --reason says what doctor found.
	for _, f := range findings {
		if f.Forbidden != "" || f.Command == "" {
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
			if i := slices.Index(step, "--reason"); step[0] != "driftdeck" || i < 0 || i+1 == len(step) || step[i+1] != "doctor: "+f.Cause {
				t.Errorf("%s: %q is not a driftdeck command with a --reason of what doctor found (%q)", f.Unit, step, f.Cause)
				continue
			}
			args := append(step[1:], "--yes")
			resetDemoState(t) // the demo keeps what a fix wrote: each runs on the state doctor saw
			if code, out, stderr := run(t, args...); code != 0 {
				t.Errorf("%s: driftdeck %q: exit %d\n%s%s", f.Unit, args, code, out, stderr)
			}
		}
	}
	resetDemoState(t)
	terminate := "fix:   driftdeck --demo terminate argocd/argocd/search-indexer --reason " + cmdline.Quote("doctor: "+byUnit["argocd/argocd/search-indexer"].Cause) + "\n"
	if code, out, _ := run(t, "--demo", "doctor"); !strings.Contains(out, terminate) || code != exitFailed {
		t.Errorf("doctor's text report: exit %d, want the line %q\n%s", code, terminate, out)
	}
}

// resetDemoState has the next --demo command start from the demo's estate.
func resetDemoState(t *testing.T) {
	t.Helper()
	if code, out, stderr := run(t, "--demo", "reset"); code != 0 {
		t.Fatalf("driftdeck --demo reset: exit %d\n%s%s", code, out, stderr)
	}
}

// backquoted are the `commands` a hint names.
func backquoted(hint string) []string {
	parts := strings.Split(hint, "`")
	var out []string
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	return out
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
