package ui

import (
	tea "charm.land/bubbletea/v2"

	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/store"
)

func TestKeyOfAnImpossibleActionSaysWhyAndOpensNothing(t *testing.T) {
	for _, c := range []struct{ unit, key, why string }{
		{"edge-cdn", "p", "manual sync policy: there is no automation to pause"},
		{"search-indexer", "T", "no running operation"},
	} {
		a, _ := newTestApp(t, 120, 30)
		selectUnit(t, a, c.unit)
		press(a, c.key)
		if !topIs[*listScreen](a) {
			t.Errorf("%s on %s opened a form:\n%s", c.key, c.unit, plain(a))
		}
		if !strings.Contains(flat(a), c.why) {
			t.Errorf("%s on %s does not say why not (%q):\n%s", c.key, c.unit, c.why, plain(a))
		}
	}
}

func TestReadOnlyRefusesEveryWriteBeforeAnyForm(t *testing.T) {
	be := &fakeBackend{}
	a := New(Options{Backend: be, Theme: "dark", ReadOnly: true, Now: func() time.Time { return fixedNow },
		Initial: store.Batch{Units: fixtureUnits()}})
	a.Update(teaSize(120, 30))
	selectUnit(t, a, "checkout")
	for _, k := range []string{"p", "s", "r", "F"} {
		press(a, k)
		if !topIs[*listScreen](a) || !strings.Contains(plain(a), "read-only mode") {
			t.Errorf("%s in read-only mode must say so and open nothing:\n%s", k, plain(a))
		}
	}
	selectUnit(t, a, "dns-zones")
	press(a, "L")
	if !topIs[*listScreen](a) || len(be.unstickCalls) != 0 {
		t.Errorf("unlock in read-only mode opened a form or read the state:\n%s", plain(a))
	}
	// A reviewed plan is shown, but applying it is a write.
	player := newPreviewPlayer()
	player.calls.Store(1)
	close(player.release)
	be.preview = player.play
	ch := make(chan tea.Msg, 16)
	selectUnit(t, a, "edge-cdn")
	sendKey(a, ch, "d")
	s := a.top().(*previewScreen)
	deliver(t, a, ch, func() bool { return s.reviewed != nil })
	press(a, "A")
	if !topIs[*previewScreen](a) || !strings.Contains(plain(a), "read-only mode") {
		t.Errorf("A on a reviewed plan in read-only mode must say so and open nothing:\n%s", plain(a))
	}
	if len(be.executed) != 0 {
		t.Errorf("read-only mode executed %v", be.executed)
	}
}

func TestMarkedUnitsAreTheTargetsOfBulkKeysEvenWhenFilteredOut(t *testing.T) {
	a, _ := newTestApp(t, 120, 30)
	selectUnit(t, a, "billing")
	press(a, "space")
	selectUnit(t, a, "kyverno")
	press(a, "space")
	lines := strings.Split(plain(a), "\n")
	if footer := lines[len(lines)-1]; !strings.Contains(footer, "2 marked:") || !strings.Contains(footer, "act on the marks") {
		t.Errorf("the footer does not say the keys act on the marks: %q", footer)
	}
	// Filter to a third unit: the marks are hidden, still the targets.
	press(a, "/")
	typeText(a, "checkout")
	press(a, "enter")
	press(a, "p")
	d, ok := a.top().(*dialog)
	if !ok || d.kind != dlgBulk {
		t.Fatalf("p with marks must confirm a bulk pause:\n%s", plain(a))
	}
	text := flat(a)
	for _, want := range []string{"2 units", "argocd/argocd/billing", "argocd/argocd/kyverno", "all 2 are hidden by the current filter"} {
		if !strings.Contains(text, want) {
			t.Errorf("the bulk dialog does not say %q:\n%s", want, plain(a))
		}
	}
	if strings.Contains(text, "argocd/argocd/checkout") {
		t.Errorf("the cursor row is not a target while units are marked:\n%s", plain(a))
	}
	// Some shown, some hidden: the hidden ones are named.
	press(a, "esc", "/", "esc") // close the dialog, clear the filter
	selectUnit(t, a, "checkout")
	press(a, "space", "/")
	typeText(a, "checkout")
	press(a, "enter", "p")
	if text := flat(a); !strings.Contains(text, "2 of them are hidden by the current filter or scope: argocd/argocd/billing, argocd/argocd/kyverno") {
		t.Errorf("the bulk dialog does not name the hidden targets:\n%s", plain(a))
	}
}

func TestKeyThatActsOnOneUnitRefusesWhileUnitsAreMarked(t *testing.T) {
	a, be := newTestApp(t, 120, 30)
	selectUnit(t, a, "billing")
	press(a, "space")
	selectUnit(t, a, "search-indexer")
	for _, k := range []string{"T", "a"} {
		press(a, k)
		if !topIs[*listScreen](a) {
			t.Fatalf("%s with marks acted on the cursor row:\n%s", k, plain(a))
		}
		if !strings.Contains(flat(a), "1 marked:") || !strings.Contains(flat(a), "esc clears them") {
			t.Errorf("%s with marks does not say why it does nothing:\n%s", k, plain(a))
		}
	}
	if len(be.executed) != 0 {
		t.Errorf("executed %v", be.executed)
	}
}

func TestKeysTypedWhileAnActionIsCheckedGoToItsForm(t *testing.T) {
	a, be := newTestApp(t, 100, 30)
	selectUnit(t, a, "checkout")
	ch := make(chan tea.Msg, 16)
	sendKey(a, ch, "p") // availability is not known yet: asked first
	for _, k := range "INC-1 C" {
		sendKey(a, ch, string(k)) // C would confirm a prune on the list
	}
	deliver(t, a, ch, func() bool { return topIs[*dialog](a) })
	d := a.top().(*dialog)
	if got := d.reason.Value(); got != "INC-1 C" {
		t.Errorf("the reason typed while the action was checked is %q", got)
	}
	if len(be.executed) != 0 {
		t.Errorf("keys typed meanwhile reached the list: %v", be.executed)
	}
}

func TestFooterOffersOnlyTheKeysPossibleOnTheCursorRow(t *testing.T) {
	a, _ := newTestApp(t, 160, 30)
	selectUnit(t, a, "checkout")
	press(a, "k", "j") // moving there asks what it can do
	lines := strings.Split(plain(a), "\n")
	footer := lines[len(lines)-1]
	if !strings.Contains(footer, "s sync  A approve  r refresh  R hard refresh  p pause  u resume  B rollback  C confirm prune") {
		t.Fatalf("the footer does not offer the possible keys: %q", footer)
	}
	if strings.Contains(footer, "T terminate") {
		t.Errorf("the footer offers terminate, which is not possible: %q", footer)
	}
}
