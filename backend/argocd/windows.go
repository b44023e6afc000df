package argocd

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/driftdeck/driftdeck/backend/objread"
)

// SyncWindow is one entry of an AppProject's spec.syncWindows.
type SyncWindow struct {
	Kind         string // "allow" or "deny"
	Schedule     string
	Duration     string
	Applications []string
	Namespaces   []string
	Clusters     []string
	ManualSync   bool
	TimeZone     string
	AndOperator  bool
	// Err is set when the schedule, duration or time zone cannot be read;
	// Argo CD treats such a window as inactive.
	Err error

	schedule cron.Schedule
	duration time.Duration
	location *time.Location
}

// cronParser parses schedules the way Argo CD does: five fields, no descriptors.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// ReadWindows reads spec.syncWindows of an AppProject object.
func ReadWindows(project map[string]any) []SyncWindow {
	r := objread.New(project)
	var out []SyncWindow
	for _, w := range r.Objects("spec", "syncWindows") {
		sw := SyncWindow{
			Kind:         w.Str("kind"),
			Schedule:     w.Str("schedule"),
			Duration:     w.Str("duration"),
			Applications: strs(w.Slice("applications")),
			Namespaces:   strs(w.Slice("namespaces")),
			Clusters:     strs(w.Slice("clusters")),
			TimeZone:     w.Str("timeZone"),
		}
		sw.ManualSync, _ = w.Bool("manualSync")
		sw.AndOperator, _ = w.Bool("andOperator")
		sw.compile()
		out = append(out, sw)
	}
	return out
}

func strs(items []any) []string {
	var out []string
	for _, it := range items {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func (w *SyncWindow) compile() {
	var err error
	if w.schedule, err = cronParser.Parse(w.Schedule); err != nil {
		w.Err = fmt.Errorf("schedule %q: %w", w.Schedule, err)
		return
	}
	if w.duration, err = time.ParseDuration(w.Duration); err != nil {
		w.Err = fmt.Errorf("duration %q: %w", w.Duration, err)
		return
	}
	w.location = time.UTC
	if w.TimeZone != "" && w.TimeZone != "UTC" {
		// Argo CD falls back to UTC for a zone it cannot load; so do we.
		if loc, err := time.LoadLocation(w.TimeZone); err == nil {
			w.location = loc
		}
	}
}

// Active reports whether the window is open at now: its schedule fired within
// the last Duration. It also returns when it closes.
func (w *SyncWindow) Active(now time.Time) (bool, time.Time) {
	if w.Err != nil {
		return false, time.Time{}
	}
	local := now.In(w.location)
	start := w.schedule.Next(local.Add(-w.duration))
	if start.After(local) {
		return false, time.Time{}
	}
	return true, start.Add(w.duration)
}

// Matches reports whether the window applies to an application. A list
// matches when any of its globs does; the lists are or-ed, or and-ed (ignoring
// empty lists) when andOperator is set.
func (w *SyncWindow) Matches(app, namespace, server, clusterName string) bool {
	checks := []struct {
		globs []string
		vals  []string
	}{
		{w.Applications, []string{app}},
		{w.Namespaces, []string{namespace}},
		{w.Clusters, []string{server, clusterName}},
	}
	matched, any := false, false
	for _, c := range checks {
		if len(c.globs) == 0 {
			continue
		}
		any = true
		m := globAny(c.globs, c.vals)
		if w.AndOperator && !m {
			return false
		}
		matched = matched || m
	}
	return any && matched
}

func globAny(globs, vals []string) bool {
	for _, g := range globs {
		for _, v := range vals {
			if v == "" {
				continue
			}
			if ok, _ := path.Match(g, v); ok || g == v {
				return true
			}
		}
	}
	return false
}

// Verdict is what the windows of a project say about syncing one app now.
type Verdict struct {
	HasWindows bool // some window matches the app: the verdict can change with time
	AutoOK     bool
	ManualOK   bool
	Reason     string // why syncing is blocked, empty when it is not
}

// Evaluate applies Argo CD's CanSync rules: an active deny window blocks
// (manual syncs pass only when every active deny window allows them);
// otherwise an active allow window permits; otherwise, if allow windows exist,
// syncs are blocked (manual ones pass only when every one of them allows it).
// A window that cannot be parsed blocks, as it does in the controller.
func Evaluate(windows []SyncWindow, app, namespace, server, clusterName string, now time.Time) Verdict {
	var matching []*SyncWindow
	for i := range windows {
		if windows[i].Matches(app, namespace, server, clusterName) {
			matching = append(matching, &windows[i])
		}
	}
	v := Verdict{HasWindows: len(matching) > 0, AutoOK: true, ManualOK: true}
	if !v.HasWindows {
		return v
	}
	var activeDeny, activeAllow, inactiveAllow []*SyncWindow
	var denyUntil time.Time
	for _, w := range matching {
		if w.Err != nil {
			v.AutoOK, v.ManualOK = false, false
			v.Reason = "invalid sync window: " + w.Err.Error()
			return v
		}
		on, until := w.Active(now)
		switch {
		case w.Kind == "deny" && on:
			activeDeny = append(activeDeny, w)
			if until.After(denyUntil) {
				denyUntil = until
			}
		case w.Kind == "allow" && on:
			activeAllow = append(activeAllow, w)
		case w.Kind == "allow":
			inactiveAllow = append(inactiveAllow, w)
		}
	}
	switch {
	case len(activeDeny) > 0:
		v.AutoOK = false
		v.ManualOK = allManual(activeDeny)
		v.Reason = fmt.Sprintf("deny window %s active until %s", describeWindow(activeDeny[0]), denyUntil.UTC().Format("15:04 MST"))
	case len(activeAllow) > 0:
	case len(inactiveAllow) > 0:
		v.AutoOK = false
		v.ManualOK = allManual(inactiveAllow)
		v.Reason = fmt.Sprintf("outside allow window %s", describeWindow(inactiveAllow[0]))
	}
	if v.Reason != "" {
		if v.ManualOK {
			v.Reason += "; manual syncs allowed"
		} else {
			v.Reason += "; manual syncs blocked too"
		}
	}
	return v
}

func allManual(ws []*SyncWindow) bool {
	for _, w := range ws {
		if !w.ManualSync {
			return false
		}
	}
	return true
}

func describeWindow(w *SyncWindow) string {
	s := fmt.Sprintf("%q for %s", w.Schedule, w.Duration)
	if w.TimeZone != "" && w.TimeZone != "UTC" {
		s += " (" + w.TimeZone + ")"
	}
	return strings.TrimSpace(s)
}
