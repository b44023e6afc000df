package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testtofu"
)

// rootConfig writes driftdeck's config naming the real tofu, and more.
func rootConfig(t *testing.T, bin, more string) {
	t.Helper()
	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "driftdeck")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("tofu: "+bin+"\n"+more), 0o600); err != nil {
		t.Fatal(err)
	}
}

var applyHint = regexp.MustCompile(`# apply exactly this plan: driftdeck --root (\S+) approve (root/default/\S+) --revision ([0-9a-f]{20}) --reason "..."`)

// A root module given with --root, no cluster: status lists it, plan
// prints the plan and the command that applies exactly it, approve applies
// exactly that plan (audited), and a plan made stale by another apply is
// refused with the new plan shown.
func TestRootModulePlanApproveAndStaleRefusalFromTheCommandLine(t *testing.T) {
	isolate(t)
	m := testtofu.New(t, testtofu.Sleepy)
	rootConfig(t, m.Bin, "")
	m.User("init", "-no-color")
	m.User("apply", "-auto-approve", "-no-color")
	ref := "root/default/" + filepath.Base(m.Dir)

	code, out, stderr := run(t, "--root", m.Dir, "status")
	if code != 0 || !strings.Contains(out, ref) || !strings.Contains(out, "#1") {
		t.Fatalf("status: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr = run(t, "--root", m.Dir, "plan", ref); code != 0 || !strings.Contains(stderr, "No changes.") {
		t.Fatalf("plan of an unchanged module: exit %d, want 0\n%s", code, stderr)
	}

	m.User("apply", "-auto-approve", "-no-color", "-var", "size=large") // drift out of band
	code, out, stderr = run(t, "--root", m.Dir, "plan", ref)
	hint := applyHint.FindStringSubmatch(stderr)
	if code != exitFailed || !strings.Contains(out, "terraform_data.server") || hint == nil || hint[1] != m.Dir || hint[2] != ref {
		t.Fatalf("plan of a drifted module: exit %d, want 1 with the command that applies it\n%s%s", code, out, stderr)
	}
	id := hint[3]
	code, out, stderr = run(t, "--root", m.Dir, "status", ref, "-o", "json")
	for _, want := range []string{`"backend": "local"`, `"serial": 2`, `"id": "` + id + `"`, `"changes": true`, `"current": true`, `"password"`} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("status -o json lacks %s (exit %d)\n%s%s", want, code, out, stderr)
		}
	}
	if strings.Contains(out, "hunter2") {
		t.Errorf("status -o json shows a sensitive output's value:\n%s", out)
	}
	if code, _, stderr = run(t, "--root", m.Dir, "approve", ref, "--revision", id, "--yes"); code != exitUsage || !strings.Contains(stderr, "--reason is required") {
		t.Errorf("approve without a reason: exit %d, want 2\n%s", code, stderr)
	}
	if code, _, stderr = run(t, "--root", m.Dir, "--read-only", "approve", ref, "--revision", id, "--reason", "INC-7", "--yes"); code != exitForbidden {
		t.Errorf("approve in read-only mode: exit %d, want 4\n%s", code, stderr)
	}
	code, out, stderr = run(t, "--root", m.Dir, "approve", ref, "--revision", id, "--reason", "INC-7 undo the hand edit", "--yes")
	if code != 0 || !strings.Contains(out, "done: applied plan "+id+" of "+ref) {
		t.Fatalf("approve: exit %d\n%s%s", code, out, stderr)
	}
	if got := m.User("output", "-raw", "endpoint"); got != "db-small.internal" {
		t.Errorf("after the apply the endpoint is %q", got)
	}
	audit, err := os.ReadFile(filepath.Join(os.Getenv("XDG_STATE_HOME"), "driftdeck", "audit.jsonl"))
	if err != nil || !strings.Contains(string(audit), `"unit":"`+ref+`","action":"apply-plan","reason":"INC-7 undo the hand edit","outcome":"done","patch":{"applyPlan":"`+id+`"}`) {
		t.Errorf("the apply's audit line is missing (%v):\n%s", err, audit)
	}

	m.User("apply", "-auto-approve", "-no-color", "-var", "size=large")
	_, _, stderr = run(t, "--root", m.Dir, "plan", ref)
	hint = applyHint.FindStringSubmatch(stderr)
	if hint == nil {
		t.Fatalf("no plan to apply:\n%s", stderr)
	}
	m.User("apply", "-auto-approve", "-no-color", "-var", "size=huge") // another apply in between
	code, _, stderr = run(t, "--root", m.Dir, "approve", ref, "--revision", hint[3], "--reason", "INC-8", "--yes")
	fresh := applyHint.FindStringSubmatch(stderr)
	if code != exitRefused || !strings.Contains(stderr, "stale") || fresh == nil || fresh[3] == hint[3] {
		t.Fatalf("approve of a stale plan: exit %d, want 6 and the new plan\n%s", code, stderr)
	}
	if got := m.User("output", "-raw", "endpoint"); got != "db-huge.internal" {
		t.Errorf("the stale plan changed the state: %q", got)
	}
	code, _, stderr = run(t, "--root", m.Dir, "diff", ref)
	if code != exitFailed || !strings.Contains(stderr, "plan "+fresh[3]) {
		t.Errorf("diff shows the newest saved plan: exit %d\n%s", code, stderr)
	}
	if code, _, stderr = run(t, "--root", m.Dir, "plan", "root/default/elsewhere"); code != exitNotFound {
		t.Errorf("plan of a module not given: exit %d, want 5\n%s", code, stderr)
	}
}

// With rootPlans in its config the agent plans the root modules on its
// own: a drift made by another apply is found, said in the log, counted in
// driftdeck_root_plans_total and among the drifted units, and the plan it
// saved is never applied.
func TestDemoAgentPlansRootModulesOnASchedule(t *testing.T) {
	m := testtofu.New(t, testtofu.Sleepy)
	m.User("init", "-no-color")
	m.User("apply", "-auto-approve", "-no-color")
	m.User("apply", "-auto-approve", "-no-color", "-var", "size=large") // drift out of band
	config := "tofu: " + m.Bin + "\nroots:\n  - path: " + m.Dir + "\n    name: network\nrootPlans:\n  every: 1h\n"
	p := startAgent(t, builtBinary(t), "root-planner", config, "--demo")
	const said = "drift check of root/default/network: 1 resource(s) drifted"
	testcluster.Eventually(t, 3*time.Minute, said, func() bool { return strings.Contains(p.stderr.String(), said) })
	if n := p.sum("driftdeck_root_plans_total", map[string]string{"result": "drifted"}); n != 1 {
		t.Errorf("driftdeck_root_plans_total{result=drifted} = %v; want the one plan counted", n)
	}
	testcluster.Eventually(t, time.Minute, "the module among the drifted units", func() bool {
		return p.sum("driftdeck_units", map[string]string{"engine": "root", "namespace": "default", "state": "drifted"}) == 1
	})
	if got := m.User("output", "-raw", "endpoint"); got != "db-large.internal" {
		t.Errorf("a scheduled plan applied something: the endpoint is %q", got)
	}
}

// With tofu installed the demo has root modules in every state, made with
// it the first time and kept: one in sync, one drifted by a hand edit and
// one with a resource added in its code (each plan waiting), one never
// planned; applying a waiting plan and planning again brings it in sync,
// and reset makes them afresh.
func TestDemoRootModulesInEveryState(t *testing.T) {
	isolate(t)
	bin := testcluster.Tool(t, "DRIFTDECK_TOFU", "opentofu")
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("TF_CLI_CONFIG_FILE", filepath.Join(t.TempDir(), "none.tfrc"))
	rows := func() map[string]string {
		t.Helper()
		code, out, stderr := run(t, "--demo", "status", "--engine", "root")
		if code != 0 {
			t.Fatalf("status: exit %d\n%s%s", code, out, stderr)
		}
		got := map[string]string{}
		for _, l := range strings.Split(out, "\n")[1:] {
			if f := strings.Fields(l); len(f) > 0 {
				got[f[0]] = strings.Join(f[1:], " ")
			}
		}
		return got
	}
	want := map[string]string{
		"root/default/network": "in sync healthy manual idle",
		"root/default/dns":     "drifted healthy manual awaiting approval",
		"root/default/edge":    "drifted healthy manual awaiting approval",
		"root/default/peering": "unknown healthy manual idle",
	}
	check := func(got map[string]string) {
		t.Helper()
		for ref, state := range want {
			if !strings.HasPrefix(got[ref], state) {
				t.Errorf("%s: %q, want %q", ref, got[ref], state)
			}
		}
	}
	got := rows()
	check(got)
	if !strings.Contains(got["root/default/edge"], "Plan: 1 to add") || !strings.Contains(got["root/default/dns"], "1 to change") {
		t.Errorf("the waiting plans' summaries:\n%v", got)
	}
	if code, out, stderr := run(t, "--demo", "approve", "root/default/dns", "--reason", "INC-3 undo the hand edit", "--yes"); code != 0 || !strings.Contains(out, "done: applied plan") {
		t.Fatalf("approve of dns: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr := run(t, "--demo", "plan", "root/default/dns"); code != 0 || !strings.Contains(stderr, "No changes.") {
		t.Fatalf("plan of dns after its apply: exit %d\n%s", code, stderr)
	}
	if got := rows(); !strings.HasPrefix(got["root/default/dns"], "in sync") {
		t.Errorf("dns after its apply and a plan: %q", got["root/default/dns"])
	}
	if code, _, stderr := run(t, "--demo", "reset"); code != 0 {
		t.Fatalf("reset: exit %d\n%s", code, stderr)
	}
	check(rows())
}
