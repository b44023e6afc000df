package ui

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/safetext"
)

type toast struct {
	text  string
	err   bool
	until time.Time
}

func (a *App) toastInfo(text string) {
	a.toasts = append(a.toasts, toast{text: safetext.Visible(text), until: a.now().Add(4 * time.Second)})
}

func (a *App) toastError(text string) {
	a.toasts = append(a.toasts, toast{text: safetext.Visible(text), err: true, until: a.now().Add(10 * time.Second)})
}

// expireToasts drops toasts whose time is up.
func (a *App) expireToasts(now time.Time) {
	kept := a.toasts[:0]
	for _, t := range a.toasts {
		if t.until.After(now) {
			kept = append(kept, t)
		}
	}
	a.toasts = kept
}
