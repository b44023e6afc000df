package ui

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/safetext"
)

// toast is a note in the status line. It belongs to the screen that was on
// top when it was raised: it shows only there and goes with it, so a note
// about one unit never reads as one about the screen opened next.
type toast struct {
	text  string
	err   bool
	until time.Time
	owner screen
}

func (a *App) toastInfo(text string) {
	a.toasts = append(a.toasts, toast{text: safetext.Visible(text), until: a.now().Add(4 * time.Second), owner: a.top()})
}

func (a *App) toastError(text string) {
	a.toasts = append(a.toasts, toast{text: safetext.Visible(text), err: true, until: a.now().Add(10 * time.Second), owner: a.top()})
}

// expireToasts drops toasts whose time is up.
func (a *App) expireToasts(now time.Time) {
	a.dropToasts(func(t toast) bool { return !t.until.After(now) })
}

// dropToasts drops the toasts gone says are gone.
func (a *App) dropToasts(gone func(toast) bool) {
	kept := a.toasts[:0]
	for _, t := range a.toasts {
		if !gone(t) {
			kept = append(kept, t)
		}
	}
	clear(a.toasts[len(kept):]) // a closed screen is not kept alive by a toast
	a.toasts = kept
}
