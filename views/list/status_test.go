package list

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
)

var allThemes = []*themes.Theme{themes.Dark(), themes.Light(), themes.HighContrast(), themes.NoColor()}

func TestANewListStartsWithTheWorstFirst(t *testing.T) {
	m := New(themes.Dark())
	m.SetSize(120, 20)
	m.SetUnits(fixture(), nil, now)
	if m.Sort() != ByState {
		t.Fatalf("a new list sorts by %s, want state", m.Sort())
	}
	if got := names(m.Shown()); got != "billing,web,network,api" {
		t.Fatalf("a new list shows %q: want stuck, failed, awaiting, then the rest", got)
	}
}

// ansi.Strip leaves what a terminal without colours or video attributes
// shows (TERM=dumb: Bubble Tea writes no styling at all there).
func TestCursorAndMarksShowWithoutAnyStyling(t *testing.T) {
	for _, th := range allThemes {
		m := New(th)
		m.SetSort(ByName)
		m.SetSize(120, 20)
		m.SetUnits(fixture(), nil, now)
		m.MoveTo(1)
		m.ToggleMark() // billing, the cursor moves on to web
		m.ToggleMark() // web, the cursor moves on to network
		m.Move(-1)     // back on web: marked and under the cursor
		plain := ansi.Strip(m.View(now))
		for name, want := range map[string]string{"api": "   a", "billing": " ✓ a", "web": ">✓ a", "network": "   p"} {
			line := lineOf(t, plain, "/"+name)
			if !strings.HasPrefix(line, want) {
				t.Errorf("%s theme: the %s row starts %q, want %q: %q", th.Name, name, line[:min(len(line), 6)], want, line)
			}
		}
		if n := strings.Count(plain, "\n"+cursorGlyph); n != 1 {
			t.Errorf("%s theme: %d rows carry the cursor glyph, want 1", th.Name, n)
		}
	}
}

func stuckOnALock() *model.Unit {
	return u(model.EnginePulumi, "infra", "dns-zones", model.Stuck, func(x *model.Unit) {
		x.RunReason = "last update failed: [409] Conflict: Another update is currently in progress \x1b]0;owned\x07 on stack acme/dns-zones/prod"
		x.StuckRule = "the last update failed because another update holds the stack's lock: retries fail until it is released; if its run is dead, break the lock, then retry"
	})
}

func TestStatusLinesHoldTheCursorRowsWholeReasonAndRule(t *testing.T) {
	m := New(themes.Dark())
	m.SetSize(80, 20)
	units := append(fixture(), stuckOnALock())
	m.SetUnits(units, nil, now)
	for m.Selected().Key.Name != "dns-zones" {
		m.Move(1)
	}
	out := m.View(now)
	lines := strings.Split(out, "\n")
	if len(lines) != 20 {
		t.Fatalf("%d lines, want 20", len(lines))
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Fatalf("line %d is %d wide", i, w)
		}
	}
	if strings.ContainsAny(out, "\x07") || strings.Contains(out, "\x1b]0;") {
		t.Fatal("the reason's escape sequence reached the screen raw")
	}
	// The text under the rule, unwrapped, holds the reason and the rule whole.
	plain := ansi.Strip(out)
	_, status, ok := strings.Cut(plain, strings.Repeat("─", 80))
	if !ok {
		t.Fatalf("no rule above the status lines:\n%s", plain)
	}
	var words []string
	for _, l := range strings.Split(status, "\n") {
		l = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(l), "why"), "stuck")
		words = append(words, strings.Fields(l)...)
	}
	joined := strings.Join(words, " ")
	for _, want := range []string{
		`last update failed: [409] Conflict: Another update is currently in progress \x1b]0;owned\x07 on stack acme/dns-zones/prod`,
		units[len(units)-1].StuckRule,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("the status lines lack %q:\n%s", want, status)
		}
	}
}

func TestStatusLinesFollowTheCursorAndKeepTheCursorRowOnScreen(t *testing.T) {
	m := New(themes.NoColor())
	m.SetSort(ByName)
	m.SetSize(80, 8)
	var units []*model.Unit
	for _, n := range []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"} {
		units = append(units, u(model.EngineArgoCD, "argocd", n, model.Idle))
	}
	units = append(units, stuckOnALock())
	m.SetUnits(units, nil, now)
	if got := ansi.Strip(m.View(now)); !strings.Contains(got, "argocd/argocd/a1") {
		t.Errorf("an idle unit's status names it:\n%s", got)
	}
	m.MoveTo(-1)
	got := ansi.Strip(m.View(now))
	if !strings.Contains(got, ">  pulumi  infra/dns-zones") {
		t.Errorf("the cursor row scrolled out of view under its status lines:\n%s", got)
	}
	if !strings.Contains(got, "more in the detail") {
		t.Errorf("a reason longer than the room says where to read it whole:\n%s", got)
	}
	if n := len(strings.Split(got, "\n")); n != 8 {
		t.Errorf("%d lines, want 8", n)
	}
}
