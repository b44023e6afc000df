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
// whether Run or StuckRule changed.
func Derive(u *Unit, now time.Time, th Thresholds) bool {
	run, rule := u.Observed, u.StuckRule
	switch {
	case u.Persisting != "" && (u.Observed == Running || u.Observed == Failed) && !u.RunSince.IsZero():
		rule = ""
		if th.Running > 0 && now.Sub(u.RunSince) > th.Running {
			run = Stuck
			rule = fmt.Sprintf("%s for %s, longer than the %s threshold", u.Persisting, HumanDuration(now.Sub(u.RunSince)), HumanDuration(th.Running))
		}
	case u.Observed == Running && !u.RunSince.IsZero():
		limit, what := th.Running, "running"
		if u.Queued {
			limit, what = th.Queued, "queued"
		}
		if limit > 0 && now.Sub(u.RunSince) > limit {
			run = Stuck
			rule = fmt.Sprintf("%s for %s, longer than the %s threshold", what, HumanDuration(now.Sub(u.RunSince)), HumanDuration(limit))
		} else {
			rule = ""
		}
	}
	if run == u.Run && rule == u.StuckRule {
		return false
	}
	u.Run, u.StuckRule = run, rule
	return true
}

// NeedsClock reports whether the unit's derived state can change with time
// alone, so the store knows which units to re-derive on its clock tick.
func NeedsClock(u *Unit) bool {
	persisting := u.Persisting != "" && u.Observed == Failed
	return ((u.Observed == Running || persisting) && !u.RunSince.IsZero()) || (u.Pause != nil && !u.Pause.Until.IsZero())
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
