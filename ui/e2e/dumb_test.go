package e2e

import (
	"strings"
	"testing"
)

// TERM=dumb: Bubble Tea writes no colour and no video attributes at all, so
// only glyphs can show the cursor row and the focused button.

// cursorRows are the screen's list rows that carry the cursor glyph, of
// whichever engine: on a busy machine the demo's first batch may put
// another engine's unit under the cursor, which keeps it as the rest
// arrive.
func cursorRows(s string) []string {
	var rows []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, ">") && containsAny(l, "argocd ", "pulumi ", "flux ", "tofu ") {
			rows = append(rows, l)
		}
	}
	return rows
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// buttonsLine is the dialog's line with its No and Yes buttons.
func buttonsLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "No") && strings.Contains(l, "Yes") && !strings.Contains(l, "enter to reach") {
			return l
		}
	}
	return ""
}

func TestDemoDumbTerminalShowsTheCursorRowAndTheFocusedButton(t *testing.T) {
	term := start(t, 120, 32, []string{"TERM=dumb"}, "--demo")
	term.waitFor(startup, "DEMO", "NAMESPACE/NAME")
	first := term.waitUntil(promptly, "one row to carry the cursor", func(s string) bool { return len(cursorRows(s)) == 1 })
	term.send("j")
	term.waitUntil(promptly, "the cursor to move to the next row", func(s string) bool {
		rows := cursorRows(s)
		return len(rows) == 1 && rows[0] != cursorRows(first)[0]
	})

	// A confirm dialog: the focused button must show without colour.
	term.send(`/argocd/cart\b` + "\r")
	term.waitUntil(promptly, "the filter to leave argocd/cart under the cursor", func(s string) bool {
		return strings.Contains(s, ">  argocd  argocd/cart ") && strings.Count(s, "argocd ") == 1
	})
	term.send("p")
	term.waitFor(promptly, "Reason:")
	term.send("INC-5150 hotfix on cart\r2h\r")
	onNo := buttonsLine(term.waitUntil(promptly, "the dialog's buttons", func(s string) bool { return buttonsLine(s) != "" }))
	term.send("\x1b[C") // → to Yes
	onYes := buttonsLine(term.waitUntil(promptly, "the focus to move to Yes and show", func(s string) bool {
		l := buttonsLine(s)
		return l != "" && l != onNo
	}))
	if strings.TrimSpace(onNo) == strings.TrimSpace(onYes) {
		t.Fatalf("the buttons read the same whichever is focused: %q", onNo)
	}
	term.send("n") // cancel: nothing is written
	term.waitFor(promptly, "NAMESPACE/NAME")
	term.send("q")
	if code := term.exit(promptly); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
