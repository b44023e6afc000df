package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/testkit/testcluster"
	"github.com/driftdeck/driftdeck/backend/testkit/testproc"
)

// rootRow is the list's row of a root module of the demo.
func rootRow(s, name string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "default/"+name+" ") {
			return line
		}
	}
	return ""
}

// rootsOfTheDemo starts the demo's workbench with tofu on its PATH and
// its own state directory (where the demo's root modules and their long
// apply run), and opens the root modules' list.
func rootsOfTheDemo(t *testing.T) (term *terminal, state string) {
	t.Helper()
	bin := testcluster.Tool(t, "DRIFTDECK_TOFU", "opentofu")
	state = t.TempDir()
	env := []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"TF_CLI_CONFIG_FILE=" + filepath.Join(t.TempDir(), "none.tfrc"), "XDG_CACHE_HOME=" + t.TempDir(), "XDG_STATE_HOME=" + state}
	term = start(t, 150, 45, env, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	term.send(":roots\r")
	return term, state
}

// With tofu installed the demo's workbench shows its root modules, one
// held by a long apply; P plans one drifted by a hand edit, A there
// applies exactly that plan with the real tofu, and a new plan finds it in
// sync. Leaving the workbench ends the long apply.
func TestDemoRootModulePlanApplyAndTheLongApply(t *testing.T) {
	term, state := rootsOfTheDemo(t)
	term.waitUntil(startup, "the demo's root modules, peering locked by its long apply", func(s string) bool {
		return strings.Contains(rootRow(s, "network"), "in sync") && strings.Contains(rootRow(s, "dns"), "drifted") &&
			strings.Contains(rootRow(s, "peering"), "state locked by")
	})
	term.send("/dns\r")
	term.waitUntil(promptly, "the filter to leave only dns", func(s string) bool {
		return rootRow(s, "dns") != "" && strings.Count(s, "tf root ") == 1
	})
	term.send("P")
	s := term.waitFor(promptly, "Diff  revision ", "terraform_data.api_record", "Plan: 0 to add, 1 to change, 0 to destroy.")
	_, rest, _ := strings.Cut(s, "Diff  revision ")
	id, _, _ := strings.Cut(rest, " ")
	if len(id) != 20 {
		t.Fatalf("the plan is not shown under its id:\n%s", s)
	}
	term.send("A")
	term.waitFor(promptly, "Apply plan "+id+" of root/default/dns", "Reason:")
	term.send("INC-14 undo the hand edit\r")
	term.waitFor(promptly, " No ", " Yes ")
	term.send("y")
	term.waitFor(promptly, "apply of plan "+id+" done")
	term.send("P")
	term.waitFor(promptly, "No changes.")
	term.send("\x1b")
	term.waitUntil(promptly, "dns in sync", func(s string) bool { return strings.Contains(rootRow(s, "dns"), "in sync") })
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	// The long apply ended with the workbench, and its provisioner's sleep
	// with it: nothing runs in the demo's modules any more.
	testproc.NoneLeftUnder(t, state, 20*time.Second)
}

// A closed terminal (SIGHUP) ends the workbench as q does: the demo's long
// apply, in a process group of its own, is interrupted with its
// provisioner's sleep, not left running for a day.
func TestDemoAClosedTerminalEndsTheLongApply(t *testing.T) {
	term, state := rootsOfTheDemo(t)
	term.waitUntil(startup, "peering locked by its long apply", func(s string) bool {
		return strings.Contains(rootRow(s, "peering"), "state locked by")
	})
	if err := term.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	term.exit(promptly)
	testproc.NoneLeftUnder(t, state, 20*time.Second)
}
