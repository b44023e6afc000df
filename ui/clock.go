package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/model"
)

// The clock draws the screen again when time alone changes it (an age's
// text, a pause's expiry, a highlight's or a toast's end), not every
// second: at rest over units hours old the workbench wakes once a minute
// (ADR 0021).

const (
	// clockAtMost bounds the wait between two ticks.
	clockAtMost = time.Minute
	// clockElsewhere is the tick under a screen that does not say when it
	// changes: an age there may show seconds, drawn as on the list.
	clockElsewhere = clockNearGrain
	// clockGrain: a change further away than this is drawn at the next
	// multiple of it on the clock, up to that much late, so that the rows
	// whose ages count minutes, each turning at its own second, are drawn
	// again together.
	clockGrain = 5 * time.Second
	// clockNearGrain: a nearer change is drawn at the clock's next even
	// second, so that ages counting seconds, each turning at its own
	// fraction of one (and a lost context's badge), cost one frame every
	// two seconds, not one each: they step by two, as k9s redraws every
	// 2 s. Each frame keeps Bubble Tea's ticker awake for half a second
	// after it, so this halves an idle screen's frames and ticks.
	clockNearGrain = 2 * time.Second
)

// nextFrameChange is when time alone next changes the frame.
func (a *App) nextFrameChange(now time.Time) time.Time {
	next := model.Soonest{Now: now, At: now.Add(clockAtMost)}
	if a.top() == screen(a.list()) {
		next.Offer(a.list().m.NextChange(now))
	} else {
		next.Offer(now.Add(clockElsewhere))
	}
	for _, t := range a.toasts {
		next.Offer(t.until)
	}
	for _, st := range a.status { // a lost context's badge counts its time
		if !st.Connected {
			next.Offer(now.Add(model.HumanDurationChangesIn(now.Sub(st.Since))))
			if !st.LastEvent.IsZero() {
				next.Offer(now.Add(model.HumanDurationChangesIn(now.Sub(st.LastEvent))))
			}
		}
	}
	return next.At
}

// armClock schedules a tick at the frame's next change, unless one is due
// by then already. Each tick carries the moment it was set for, and only
// the tick the app waits for sets the next: one chain of ticks, whatever a
// message moved forward.
func (a *App) armClock() tea.Cmd {
	now := a.now()
	next := a.nextFrameChange(now)
	grain := clockNearGrain
	if next.Sub(now) > clockGrain {
		grain = clockGrain
	}
	if !next.Equal(next.Truncate(grain)) {
		next = next.Truncate(grain).Add(grain)
	}
	if !a.tickDue.IsZero() && !next.Before(a.tickDue) {
		return nil
	}
	a.tickDue = next
	return tea.Tick(next.Sub(now), func(time.Time) tea.Msg { return tickMsg(next) })
}

// onTick ends the chain the tick was part of when it is the one awaited.
func (a *App) onTick(msg tickMsg) {
	if time.Time(msg).Equal(a.tickDue) {
		a.tickDue = time.Time{}
	}
	a.expireToasts(a.now())
}
