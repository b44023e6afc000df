package ui

import (
	"strings"
	"testing"
)

// :ns refuses a namespace no unit is in, as :ctx refuses a context that is
// not connected, instead of showing an empty list without a word.
func TestNsRefusesANamespaceWithNoUnit(t *testing.T) {
	a, _ := newTestApp(t, 120, 30)
	press(a, ":")
	typeText(a, "ns nope")
	press(a, "enter")
	if got := flat(a); !strings.Contains(got, `no unit is in namespace "nope" (have: argocd, infra, team-payments)`) {
		t.Errorf(":ns nope must be refused, naming the namespaces there are:\n%s", plain(a))
	}
	if ns := a.list().m.Scope().Namespace; ns != "" || len(a.list().m.Shown()) != len(fixtureUnits()) {
		t.Errorf("a refused :ns narrowed the list to %q", ns)
	}
	press(a, ":")
	typeText(a, "ns infra")
	press(a, "enter")
	if got := plain(a); !strings.Contains(got, ":ns infra") || strings.Contains(got, "argocd/checkout") {
		t.Errorf(":ns infra must show the units of infra only:\n%s", got)
	}
}

// Tab in the ":" prompt cycles through every completion of what was typed,
// shift+tab back, and says where it is.
func TestTabCyclesThroughTheCompletions(t *testing.T) {
	a, _ := newTestApp(t, 120, 30)
	press(a, ":")
	typeText(a, "ns ")
	for i, want := range []string{"ns argocd", "ns infra", "ns team-payments", "ns argocd"} {
		press(a, "tab")
		if got := a.bar.input.Value(); got != want {
			t.Fatalf("tab %d: the prompt holds %q, want %q", i+1, got, want)
		}
	}
	press(a, "shift+tab")
	if got := a.bar.input.Value(); got != "ns team-payments" {
		t.Fatalf("shift+tab goes back: the prompt holds %q", got)
	}
	if got := plain(a); !strings.Contains(got, ":ns team-payments") || !strings.Contains(got, "3 of 3: tab next, shift+tab back") {
		t.Errorf("the prompt does not say where the cycle is:\n%s", got)
	}
	press(a, "enter")
	if ns := a.list().m.Scope().Namespace; ns != "team-payments" {
		t.Errorf("enter ran %q, want the completion shown", ns)
	}
}

// "/" on a filter in force edits it in place, and the prompt says so and
// how to start over.
func TestSlashEditsTheFilterInForceAndSaysSo(t *testing.T) {
	a, _ := newTestApp(t, 120, 30)
	press(a, "/")
	typeText(a, "bill")
	press(a, "enter")
	press(a, "/")
	if got := plain(a); !strings.Contains(got, "/bill") || !strings.Contains(got, "editing the filter in force: enter keeps the edit, ctrl+u starts over, esc clears it") {
		t.Fatalf("the prompt must show the filter in force and say it edits it:\n%s", got)
	}
	press(a, "ctrl+u")
	typeText(a, "check")
	press(a, "enter")
	if f := a.list().m.Filter().Text; f != "check" {
		t.Errorf("ctrl+u then typing gave the filter %q, want a new one", f)
	}
	press(a, "/")
	if strings.Contains(plain(a), "/bill") {
		t.Errorf("the old filter is still shown:\n%s", plain(a))
	}
}
