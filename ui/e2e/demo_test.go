package e2e

import (
	"strings"
	"testing"
)

func TestDemoFilterDetailQuit(t *testing.T) {
	term := start(t, 120, 32, nil, "--demo")
	term.waitFor(startup, "DEMO", "units", "NAMESPACE/NAME")
	term.waitUntil(promptly, "the list to fill the screen", func(s string) bool {
		rows := 0
		for _, engine := range []string{"argocd ", "pulumi ", "flux ks ", "flux hr ", "tofu tf "} {
			rows += strings.Count(s, engine)
		}
		return rows >= 20
	})

	term.send("/")
	term.send("velero")
	term.send("\r")
	// "argocd/velero" is on the unfiltered screen too: wait for the others to go.
	term.waitUntil(promptly, "the filter to leave only argocd/velero", func(s string) bool {
		return strings.Contains(s, "argocd/velero") && strings.Count(s, "argocd ") == 1 && !strings.Contains(s, "pulumi ")
	})

	term.send("\r")
	term.waitFor(promptly, "argocd/argocd/velero", "Overview", "Can do", "Operation")
	term.send("\t\t\t\t") // to the YAML tab
	term.waitFor(promptly, "apiVersion: argoproj.io/v1alpha1", "kind: Application")
	if strings.Contains(term.screen(), "managedFields") {
		t.Error("the YAML shows managedFields")
	}

	term.send("\x1b") // back to the list
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	// On a terminal that draws frames whole (mode 2026, as most do), each
	// frame is sent as one update: the screen never shows half of one.
	out := string(term.written())
	if begun, ended := strings.Count(out, "\x1b[?2026h"), strings.Count(out, "\x1b[?2026l"); begun == 0 || begun != ended {
		t.Errorf("%d frames begun and %d ended in synchronized updates; want every frame in one", begun, ended)
	}
	if term.altScreen() {
		t.Fatal("the terminal is left on the alternate screen")
	}
}

// The list starts with the worst first, as the README's sample shows.
func TestDemoStartsSortedByState(t *testing.T) {
	term := start(t, 120, 32, nil, "--demo")
	term.waitFor(startup, "DEMO", "sort state", "NAMESPACE/NAME")
	s := term.waitUntil(promptly, "a stuck unit on the first row", func(s string) bool {
		rows := strings.Split(s, "\n")
		for i, l := range rows {
			if strings.Contains(l, "NAMESPACE/NAME") && i+1 < len(rows) {
				return strings.Contains(rows[i+1], " stuck ")
			}
		}
		return false
	})
	if !strings.Contains(s, ">") {
		t.Errorf("no row carries the cursor:\n%s", s)
	}
}

// shownPlan is the part of a dialog's plan on screen: a new plan differs
// in it (its time, its resourceVersion), if in nothing else.
func shownPlan(screen string) string {
	_, rest, _ := strings.Cut(screen, "Will write:")
	plan, _, _ := strings.Cut(rest, "pgdown/pgup scroll")
	return plan
}

// cartRowPaused: the list's row of argocd/cart shows it paused.
func cartRowPaused(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "argocd/cart ") && strings.Contains(line, "paused") {
			return true
		}
	}
	return false
}

func TestDemoPauseFromTheList(t *testing.T) {
	term := start(t, 140, 36, nil, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	term.send(`/argocd/cart\b` + "\r")
	term.waitFor(promptly, "argocd/cart ", "self-heal")
	term.send("p")
	term.waitFor(promptly, "Pause auto-sync and self-heal of argocd/argocd/cart", "driftdeck.io/paused-previous", "Reason:")
	// Each field is waited for as it is typed: in a CI run (four race-built
	// test binaries at once) the race-built demo drew a key every half
	// second or more, and the whole reason and expiry behind one wait of
	// 20 s, with the write after them, did not show in time.
	term.send("INC-5150 hotfix on cart")
	term.waitFor(promptly, "Reason: INC-5150 hotfix on cart")
	term.send("\r") // to the expiry
	term.send("2h")
	term.waitFor(promptly, "Until:  2h")
	term.send("\r")
	term.waitFor(promptly, " No ", " Yes ")
	term.send("y")
	// The promise is "done" once the write is made; "working…" may show
	// first, for as long as the machine needs. The demo's controllers may
	// change the Application between the plan shown and the yes: then the
	// dialog says that nothing was written and asks again, as a user sees.
	for asked := 1; ; asked++ {
		s := term.waitUntil(promptly, "the pause done, or asked to confirm again", func(s string) bool {
			return strings.Contains(s, "— done") || strings.Contains(s, "confirm again")
		})
		if strings.Contains(s, "— done") {
			break
		}
		if asked == 3 {
			t.Fatalf("asked to confirm again three times:\n%s", s)
		}
		term.send("y")
		// The ask stays on screen until the yes is taken: counting it again
		// would be counting one ask as many.
		term.waitUntil(promptly, "the yes to be taken", func(n string) bool {
			return strings.Contains(n, "— done") || !strings.Contains(n, "confirm again") || shownPlan(n) != shownPlan(s)
		})
	}
	term.waitUntil(promptly, "cart to show as paused in the list", cartRowPaused)
	// The write landed on the object: the detail reads it back from the
	// object's annotations, with who and why.
	term.send("\r")
	term.waitFor(promptly, "Paused by driftdeck", "INC-5150 hotfix on cart", "demo-oncall@example.com")
	term.send("\x1b")
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
