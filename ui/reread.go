package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// rereader paces the reads a screen repeats when its unit changes: at most
// one per interval, and a change that arrives while a read is in flight is
// picked up when that read returns.
type rereader struct {
	inflight bool
	stale    bool
	last     time.Time
}

// read returns the command that runs fetch, delayed to keep the pace, or
// nil when a read is in flight (it will be run again after it).
func (r *rereader) read(now time.Time, every time.Duration, fetch func() tea.Msg) tea.Cmd {
	if r.inflight {
		r.stale = true
		return nil
	}
	r.inflight, r.stale = true, false
	if wait := every - now.Sub(r.last); wait > 0 && !r.last.IsZero() {
		r.last = now.Add(wait)
		return tea.Tick(wait, func(time.Time) tea.Msg { return fetch() })
	}
	r.last = now
	return fetch
}

// done takes a read's answer; again says a change came meanwhile.
func (r *rereader) done() (again bool) {
	r.inflight = false
	return r.stale
}
