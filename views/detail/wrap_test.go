package detail

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/themes"
)

const (
	longEvent = "Failed sync attempt to 3f9c2e1: one or more objects failed to apply, reason: Deployment.apps \"payments-api\" is invalid: spec.template.spec.containers[0].image: Required value (retried 5 times)."
	longYAML  = `paused-owner-hold: '{"applicationSet":"team-payments","by":"oncall@example.com","reason":"hold during the incident","previous":{"prune":true,"selfHeal":true}}'`
)

// shownWith is the screen of a tab after the wrap key, and whether the
// screen before it marked a cut.
func shownWith(t *testing.T, tab Tab, d *describe.Detail) (cut bool, wrapped string) {
	t.Helper()
	m := New(themes.Dark(), lockedStack())
	m.SetSize(80, 24)
	m.SetDetail(d, nil)
	m.ShowTab(tab)
	before := m.View(now)
	m.ToggleWrap()
	return m.Cut() && strings.Contains(ansi.Strip(before), "…"), m.View(now)
}

func TestEventMessageIsReadWholeWithTheWrapKey(t *testing.T) {
	cut, out := shownWith(t, Events, &describe.Detail{Events: []describe.Event{{Type: "Warning", Reason: "OperationFailed", Source: "argocd-application-controller", Message: longEvent, Last: now}}})
	if !cut {
		t.Error("the cut message is not marked cut before the wrap key")
	}
	if !strings.Contains(words(out), words(longEvent)) {
		t.Errorf("the event's message is not whole after the wrap key:\n%s", ansi.Strip(out))
	}
	fitsWidth(t, out, 80)
}

func TestYAMLLineIsReadWholeWithTheWrapKey(t *testing.T) {
	cut, out := shownWith(t, YAML, &describe.Detail{YAML: "metadata:\n  annotations:\n    " + longYAML + "\n  name: payments-api\n"})
	if !cut {
		t.Error("the cut line is not marked cut before the wrap key")
	}
	if !strings.Contains(squash(out), squash(longYAML)) {
		t.Errorf("the YAML line is not whole after the wrap key:\n%s", ansi.Strip(out))
	}
	if !strings.Contains(ansi.Strip(out), "\n  name: payments-api") {
		t.Errorf("the lines after it lost their place:\n%s", ansi.Strip(out))
	}
	fitsWidth(t, out, 80)
}

func fitsWidth(t *testing.T, screen string, width int) {
	t.Helper()
	for i, l := range strings.Split(screen, "\n") {
		if ansi.StringWidth(l) > width {
			t.Errorf("line %d is %d wide", i, ansi.StringWidth(l))
		}
	}
}

// squash drops all white space: text wrapped inside a word still matches.
func squash(s string) string { return strings.Join(strings.Fields(ansi.Strip(s)), "") }
