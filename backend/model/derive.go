package model

import (
	"fmt"
	"time"
)

// Thresholds say how long a run may last before driftdeck calls it stuck.
type Thresholds struct {
	Running time.Duration // a run in progress
	Queued  time.Duration // a run requested but not picked up
}

// DefaultThresholds are used when the configuration names none.
var DefaultThresholds = Thresholds{Running: 10 * time.Minute, Queued: 2 * time.Minute}

// Derive sets u.Run from u.Observed and the time: a run or queued request older
// than its threshold becomes Stuck, with the rule that made it so. It reports
// whether Run or StuckRule changed. The rule names the threshold, not how
// long the run has lasted (the SINCE column and the detail's Run line count
// that): a rule that counted minutes changed every stuck unit once a
// minute, a batch each time, on a screen where nothing had happened.
func Derive(u *Unit, now time.Time, th Thresholds) bool {
	run, rule := u.Observed, u.StuckRule
	if what, limit, ok := stuckClock(u, th); ok {
		rule = ""
		if limit > 0 && now.Sub(u.RunSince) > limit {
			run = Stuck
			rule = fmt.Sprintf("%s for longer than the %s threshold", what, HumanDuration(limit))
		}
	}
	if run == u.Run && rule == u.StuckRule {
		return false
	}
	u.Run, u.StuckRule = run, rule
	return true
}

// stuckClock is the rule Derive applies to u: what the unit is doing and
// how long it may (0: no limit); false when the unit is not running.
func stuckClock(u *Unit, th Thresholds) (what string, limit time.Duration, ok bool) {
	switch {
	case u.RunSince.IsZero():
		return "", 0, false
	case u.Persisting != "" && (u.Observed == Running || u.Observed == Failed):
		what, limit = u.Persisting, th.Running
	case u.Observed == Running && u.Queued:
		what, limit = "queued", th.Queued
	case u.Observed == Running:
		what, limit = "running", th.Running
	default:
		return "", 0, false
	}
	return what, limit, true
}

// DerivesAgainAt is when time alone next changes what Derive makes of u
// (its stuck threshold passed, its pause's end), after now; zero when
// nothing will until the unit itself changes. The store re-derives a unit
// then, not on every tick.
func DerivesAgainAt(u *Unit, now time.Time, th Thresholds) time.Time {
	next := Soonest{Now: now}
	if _, limit, ok := stuckClock(u, th); ok && limit > 0 {
		next.Offer(u.RunSince.Add(limit + time.Nanosecond))
	}
	if u.Pause != nil && !u.Pause.Until.IsZero() {
		next.Offer(u.Pause.Until.Add(time.Nanosecond))
	}
	return next.At
}

// Soonest keeps the earliest moment offered to it that is after Now: the
// next time something shown or derived changes. At is zero until one is
// offered, or starts as a bound no later moment passes.
type Soonest struct {
	Now, At time.Time
}

// Offer keeps t when it is after Now and before At (or At is zero).
func (s *Soonest) Offer(t time.Time) {
	if t.After(s.Now) && (s.At.IsZero() || t.Before(s.At)) {
		s.At = t
	}
}

// HumanDurationChangesIn is how long after d the text HumanDuration gives
// for it changes: a screen that shows it need not be drawn again before.
func HumanDurationChangesIn(d time.Duration) time.Duration {
	step := time.Second
	switch {
	case d < 0:
		return -d + step
	case d < 10*time.Minute:
	case d < 8*time.Hour:
		step = time.Minute
	case d < 48*time.Hour:
		step = time.Hour
	default:
		step = 24 * time.Hour
	}
	return step - d%step
}

// HumanDuration renders a duration the way kubectl's AGE column does.
func HumanDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < 10*time.Minute:
		s := int(d.Seconds()) % 60
		if s == 0 {
			return fmt.Sprintf("%dm", int(d.Minutes()))
		}
		return fmt.Sprintf("%dm%ds", int(d.Minutes()), s)
	case d < 3*time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 8*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}
