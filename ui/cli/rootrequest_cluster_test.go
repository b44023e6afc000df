package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/testkit/testchangereq"
	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testtofu"
)

// A root module's apply asked for on the command line: the requester is
// shown the plan her request keeps, the reviewer the plan whole (no
// sensitive value), and the agent applies its own plan once approved.
func TestClusterARootModuleRequestFromAskingToAppliedOnTheCommandLine(t *testing.T) {
	w := newRequestWorld(t)
	m := testtofu.New(t, testtofu.Sleepy)
	rootConfig(t, m.Bin, "")
	m.User("init", "-no-color")
	m.User("apply", "-auto-approve", "-no-color")
	m.User("apply", "-auto-approve", "-no-color", "-var", "size=large") // drift out of band
	ref := "root/default/" + filepath.Base(m.Dir)

	code, out, errOut := w.as(t, "ask-ann", "--root", m.Dir, "request", "approve", ref, "--request-namespace", w.ns, "--reason", "CHG-12: the small server again")
	mt := requestedName.FindStringSubmatch(out)
	if code != 0 || mt == nil || !strings.Contains(errOut, "the request asks the agent to apply this plan") || !strings.Contains(out, "-  size: large") {
		t.Fatalf("request approve %s: exit %d\n%s\n%s", ref, code, out, errOut)
	}
	name := mt[1]
	code, out, errOut = w.as(t, "ask-ben", "review", name, "--approve", "--reason", "the plan puts it back", "--yes")
	if code != 0 || !strings.Contains(out, "approved: "+name) || !strings.Contains(errOut, "approve "+ref) ||
		!strings.Contains(errOut, "applies (the agent plans the module again") || !strings.Contains(errOut, "terraform_data.server: replace (") ||
		!strings.Contains(errOut, "-endpoint: db-large.internal") || strings.Contains(errOut, "hunter2") {
		t.Fatalf("ask-ben's review: exit %d\n%s\n%s", code, out, errOut)
	}

	// The agent's binary, as its ServiceAccount, reading the module (in no
	// namespace: -n would leave it out).
	kubeconfig := testcluster.KubeconfigIn(t, testchangereq.AgentConfig(t, testcluster.Shared(t)), "prod", w.ns)
	agent := startAgent(t, builtBinary(t), "agent-0", "tofu: "+m.Bin+"\n", "--kubeconfig", kubeconfig, "--root", m.Dir, "--interval", "200ms")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the agent said:\n%s", agent.stderr.String())
		}
	})
	testcluster.Eventually(t, 2*time.Minute, "the agent applying the request", func() bool {
		return agent.sum("driftdeck_agent_change_requests_total", map[string]string{"phase": "Applied"}) == 1
	})
	if got := m.User("output", "-raw", "endpoint"); got != "db-small.internal" {
		t.Fatalf("after the agent's apply the endpoint is %q", got)
	}
	lines := agent.auditLines()
	if len(lines) != 1 || lines[0].Action != "apply-plan" || lines[0].Outcome != "done" || !strings.Contains(lines[0].Approval, "asked by ask-ann, approved by ask-ben") {
		t.Errorf("the agent's audit: %+v", lines)
	}
	code, out, _ = w.as(t, "ask-ann", "requests", "-o", "wide")
	if code != 0 || !strings.Contains(out, "Applied") || !strings.Contains(out, ref) {
		t.Errorf("requests -o wide after the apply: exit %d\n%s", code, out)
	}
}
