package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

// clockedApp is the workbench at w x 20 with one running unit whose state
// began 5 s before start and one context disconnected as long, its clock
// moved by the test.
func clockedApp(t *testing.T, w int) (*App, *time.Time) {
	t.Helper()
	now := fixedNow
	u := &model.Unit{Key: model.Key{Context: "prod-eu-1", Engine: model.EngineArgoCD, Namespace: "argocd", Name: "checkout"},
		Sync: model.InSync, Health: model.Progressing, Automation: model.SelfHeal, Run: model.Running, Observed: model.Running,
		RunSince: now.Add(-5 * time.Second), Kind: "Application", Argo: &model.ArgoFacts{}}
	batch := store.Batch{Units: []*model.Unit{u}, Status: []store.ContextStatus{
		{Context: "prod-eu-1", Identity: "oncall@example.com", Connected: true, Synced: true, LastEvent: now},
		{Context: "prod-us-1", Identity: "oncall@example.com", Since: now.Add(-5 * time.Second), LastEvent: now.Add(-5 * time.Second)},
	}}
	a := New(Options{Backend: &fakeBackend{}, Theme: "dark", Initial: batch, Now: func() time.Time { return now }})
	a.Update(tea.WindowSizeMsg{Width: w, Height: 20})
	return a, &now
}

// The lines kept from the last frame must never hide what the clock
// changed: each tick draws the new age of the row and of the header.
func TestClockTickRedrawsTheAgesItChanged(t *testing.T) {
	a, now := clockedApp(t, 160)
	for _, want := range []string{"5s", "6s", "7s"} {
		screen := plain(a)
		if !strings.Contains(screen, "DISCONNECTED "+want) || !strings.Contains(rowOf(t, screen, "checkout"), " "+want+" ") {
			t.Fatalf("want the header and the row aged %s; the screen is:\n%s", want, screen)
		}
		*now = now.Add(time.Second)
		a.Update(tickMsg(*now))
	}
}

// A tick that changes no text on screen gives the same frame byte for byte,
// which the renderer then does not write again.
func TestIdleTickKeepsTheFrame(t *testing.T) {
	a, _ := newTestApp(t, 120, 30)
	before := a.View().Content
	a.Update(tickMsg(fixedNow))
	if after := a.View().Content; after != before {
		t.Fatalf("an idle tick changed the frame:\n%s\nwas:\n%s", ansi.Strip(after), ansi.Strip(before))
	}
}

// A narrower window truncates every line drawn before at the new width,
// and a wider one shows them whole again.
func TestResizeRefitsLinesKeptFromTheLastFrame(t *testing.T) {
	a, _ := newTestApp(t, 160, 30)
	wide := plain(a)
	a.Update(tea.WindowSizeMsg{Width: 50, Height: 30})
	for _, l := range strings.Split(plain(a), "\n") {
		if w := ansi.StringWidth(l); w > 50 {
			t.Fatalf("a line %d cells wide in a 50-cell window: %q", w, l)
		}
	}
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	if again := plain(a); again != wide {
		t.Fatalf("back at 160 cells the screen is:\n%s\nwas:\n%s", again, wide)
	}
}

// The key hints are drawn again in a new theme and at a new width.
func TestKeyHintsFollowThemeAndWidth(t *testing.T) {
	a, _ := newTestApp(t, 160, 30)
	footer := func() string { lines := strings.Split(a.View().Content, "\n"); return lines[len(lines)-1] }
	dark := footer()
	if err := a.setTheme("light"); err != nil {
		t.Fatal(err)
	}
	if light := footer(); light == dark || ansi.Strip(light) != ansi.Strip(dark) {
		t.Fatalf("the footer in the light theme is %q, in the dark one %q: want the same keys, styled anew", light, dark)
	}
	a.Update(tea.WindowSizeMsg{Width: 40, Height: 30})
	// At 40 cells the footer is fitted anew: whole hints left out, the help kept.
	if narrow := ansi.Strip(footer()); ansi.StringWidth(narrow) > 40 || narrow == ansi.Strip(dark) || !strings.HasSuffix(narrow, "? help") {
		t.Fatalf("the footer at 40 cells is %q: want it fitted to the width", narrow)
	}
}

// rowOf is the screen line of the unit named name.
func rowOf(t *testing.T, screen, name string) string {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, name) {
			return l
		}
	}
	t.Fatalf("no row of %s on the screen:\n%s", name, screen)
	return ""
}

// A line the screen gives unchanged at another width (a detail's text, a
// log line) is cut again at the new width, not taken from the last frame.
func TestFittedLinesCutAgainAtANewWidth(t *testing.T) {
	var f fittedLines
	line := strings.Repeat("x", 60)
	if got := f.fit(line, 2, 80); got != line+"\n" {
		t.Fatalf("at 80 cells: %q", got)
	}
	if got := f.fit(line, 2, 20); got != strings.Repeat("x", 19)+"…\n" {
		t.Fatalf("at 20 cells: %q", got)
	}
}
