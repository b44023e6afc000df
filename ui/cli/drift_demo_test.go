package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumirun/pulumiruntest"
)

// The demo's analytics Stack last read network-prod's outputs before the
// VPC was rebuilt: drift, run with the real pulumi CLI, lists that
// reference with what changed and exits 1, as diff does for differences;
// it changes nothing, so a second check finds the same.
func TestDemoDriftListsTheDriftedResourceAndExitsOne(t *testing.T) {
	pulumiruntest.CLI(t)
	pulumiruntest.ReleaseHelper(t)
	isolate(t)
	for range 2 {
		code, out, stderr := run(t, "--demo", "drift", "pulumi/infra/analytics-preview")
		if code != exitFailed {
			t.Fatalf("drift: exit %d; want 1 (drift found)\n%s%s", code, out, stderr)
		}
		for _, want := range []string{"update   pulumi:pulumi:StackReference", "organization/network/prod",
			`outputs.vpcId: "vpc-04d7a3e9b1c2f8e60" => "vpc-0c81f2a9e4d5b6a71"`} {
			if !strings.Contains(out, want) {
				t.Errorf("drift does not show %q:\n%s", want, out)
			}
		}
		if !strings.Contains(stderr, "1 of 7 resources drifted") || strings.Contains(stderr, "error:") {
			t.Errorf("drift's count or error:\n%s", stderr)
		}
	}
	if code, _, stderr := run(t, "--demo", "drift", "argocd/argocd/guestbook"); code != exitUsage || !strings.Contains(stderr, "use driftdeck diff") {
		t.Errorf("drift of an Application: exit %d; want 2 naming diff\n%s", code, stderr)
	}
}

// With driftChecks in its config the agent checks the Stacks on its own:
// the demo's analytics Stack is found drifted, said in the log, counted in
// driftdeck_drift_checks_total and among the drifted units.
func TestDemoAgentChecksStacksForDriftOnASchedule(t *testing.T) {
	t.Setenv(pulumirun.CLIEnv, pulumiruntest.CLI(t))
	pulumiruntest.ReleaseHelper(t)
	p := startAgent(t, builtBinary(t), "drift-checker", "driftChecks:\n  every: 1h\n  concurrency: 2\n", "--demo")
	const said = "drift check of demo:pulumi/infra/analytics-preview: 1 resource(s) drifted"
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(p.stderr.String(), said) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not say %q within 3m:\n%s", said, p.stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := p.sum("driftdeck_drift_checks_total", map[string]string{"result": "drifted"}); n < 1 {
		t.Errorf("driftdeck_drift_checks_total{result=drifted} = %v; want the analytics check counted", n)
	}
	if n := p.sum("driftdeck_units", map[string]string{"engine": "pulumi", "namespace": "infra", "state": "drifted"}); n < 1 {
		t.Errorf("driftdeck_units{engine=pulumi,state=drifted} = %v; want analytics-preview among them", n)
	}
}
