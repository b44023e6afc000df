package ui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

// At rest over units hours old, the workbench is woken once a minute at
// most, not every second; what shows time sets the clock sooner: units a
// few seconds old (together, every two seconds), a toast's end, a screen that
// does not say when it changes; and a tick that is not the one awaited
// starts no second chain.
func TestTheClockWakesTheWorkbenchWhenTimeChangesTheScreen(t *testing.T) {
	now := fixedNow
	old := &model.Unit{Key: model.Key{Engine: model.EngineArgoCD, Namespace: "argocd", Name: "billing"},
		Sync: model.InSync, Health: model.Healthy, RunSince: now.Add(-30 * time.Hour), Kind: "Application", Argo: &model.ArgoFacts{}}
	status := []store.ContextStatus{{Context: "prod", Identity: "oncall", Connected: true, Synced: true, LastEvent: now}}
	a := New(Options{Backend: &fakeBackend{}, Theme: "dark", Now: func() time.Time { return now }})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	due := func() time.Duration { return a.tickDue.Sub(now) }

	a.Update(BatchMsg(store.Batch{Units: []*model.Unit{old}, Status: status}))
	if due() < clockAtMost || due() >= clockAtMost+clockGrain {
		t.Fatalf("over a unit 30 hours old the next tick is in %v, want %v (on the clock's %v)", due(), clockAtMost, clockGrain)
	}

	// Rows whose ages count minutes, each turning at its own second, are
	// drawn again together.
	var minutes []*model.Unit
	for i := range 10 {
		m := *old
		m.Key.Name, m.RunSince = fmt.Sprint("minutes-", i), now.Add(-17*time.Minute-time.Duration(i)*3*time.Second)
		minutes = append(minutes, &m)
	}
	a.tickDue = time.Time{}
	a.Update(BatchMsg(store.Batch{Units: minutes, Status: status}))
	if at := a.tickDue; at.Sub(now) > time.Minute || !at.Equal(at.Truncate(clockGrain)) {
		t.Fatalf("rows whose ages count minutes set the next tick at %v, %v after now: want the clock's next %v", at, at.Sub(now), clockGrain)
	}

	// Rows whose ages count seconds, each turning at its own fraction of
	// one, are drawn together at the clock's even seconds.
	now = now.Add(100 * time.Millisecond)
	young, younger := *old, *old
	young.Key.Name, young.RunSince = "checkout", now.Add(-5*time.Second-200*time.Millisecond)
	younger.Key.Name, younger.RunSince = "payments", now.Add(-7*time.Second-600*time.Millisecond)
	_, cmd := a.Update(BatchMsg(store.Batch{Units: []*model.Unit{old, &young, &younger}, Status: status,
		Changed: map[model.Key]bool{young.Key: true, younger.Key: true}}))
	if cmd == nil || due() != 1900*time.Millisecond {
		t.Fatalf("units 5.2 and 7.6 s old set the next tick in %v (a command: %v), want 1.9s: the clock's next even second, when both ages have turned", due(), cmd != nil)
	}

	// The tick awaited sets the next; an earlier chain's tick does not.
	now = now.Add(1900 * time.Millisecond)
	if _, cmd := a.Update(tickMsg(now.Add(-time.Hour))); cmd != nil || due() != 0 {
		t.Fatalf("a tick not awaited set the clock: due in %v", due())
	}
	if _, cmd := a.Update(tickMsg(a.tickDue)); cmd == nil || due() != 2*time.Second {
		t.Fatalf("the awaited tick set the next in %v (a command: %v), want 2s", due(), cmd != nil)
	}

	// Under the help screen, which does not say when it changes: every
	// second. Back on the list over the old unit alone: a toast's end.
	a.Update(BatchMsg(store.Batch{Units: []*model.Unit{old}, Status: status}))
	a.tickDue = time.Time{}
	a.toastInfo("saved")
	a.Update(nil)
	if due() != 4*time.Second {
		t.Fatalf("a toast of 4 s set the next tick in %v", due())
	}
	press(a, "?")
	now = now.Add(4 * time.Second)
	a.Update(tickMsg(a.tickDue))
	if due() != clockElsewhere {
		t.Fatalf("under the help screen the next tick is in %v, want %v", due(), clockElsewhere)
	}
}
