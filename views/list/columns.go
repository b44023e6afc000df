package list

import (
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
)

// column is one column of the list. Fixed columns have a width; flexible ones
// share what is left, each at least min wide, and are dropped (lowest
// priority first) when the terminal is too narrow.
type column struct {
	title    string
	width    int // fixed width; 0 for flexible
	min      int
	priority int // lower drops first
	cell     func(u *model.Unit, now time.Time) string
	style    func(t *themes.Theme, u *model.Unit, now time.Time) lipgloss.Style
}

const (
	colContext = iota
	colEngine
	colName
	colSync
	colHealth
	colAutomation
	colRun
	colAge
	colRevision
	colReason
	numColumns
)

var columns = [numColumns]column{
	colContext:    {title: "CONTEXT", width: 14, priority: 2, cell: func(u *model.Unit, _ time.Time) string { return u.Key.Context }},
	colEngine:     {title: "ENGINE", width: 7, priority: 9, cell: func(u *model.Unit, _ time.Time) string { return EngineLabel(u.Key.Engine) }},
	colName:       {title: "NAMESPACE/NAME", min: 20, priority: 10, cell: nameCell},
	colSync:       {title: "SYNC", width: 7, priority: 8, cell: func(u *model.Unit, _ time.Time) string { return u.Sync.String() }, style: syncStyle},
	colHealth:     {title: "HEALTH", width: 8, priority: 6, cell: healthCell, style: healthStyle},
	colAutomation: {title: "AUTO", width: 9, priority: 8, cell: automationCell, style: automationStyle},
	colRun:        {title: "RUN", width: 8, priority: 9, cell: runCell, style: runStyle},
	colAge:        {title: "SINCE", width: 5, priority: 4, cell: ageCell},
	colRevision:   {title: "REV", width: 7, priority: 3, cell: func(u *model.Unit, _ time.Time) string { return ShortRevision(u.Applied) }},
	colReason:     {title: "REASON", min: 12, priority: 7, cell: func(u *model.Unit, _ time.Time) string { return u.Reason() }, style: reasonStyle},
}

// timeDependent columns are re-rendered on every frame; the rest are cached
// per unit.
func timeDependent(c int) bool { return c == colAge || c == colAutomation }

// EngineLabel names an engine in at most 7 cells (model.EngineInfo.Label).
func EngineLabel(e model.Engine) string { return model.InfoOf(e).Label }

func nameCell(u *model.Unit, _ time.Time) string {
	s := u.Key.Namespace + "/" + u.Key.Name
	if len(u.ReadErrors) > 0 {
		s = "!" + s
	}
	return s
}

func healthCell(u *model.Unit, _ time.Time) string {
	if u.Health == model.Progressing {
		return "progress"
	}
	if u.Health == model.HealthSuspended {
		return "suspend"
	}
	return u.Health.String()
}

func automationCell(u *model.Unit, now time.Time) string {
	if u.Pause != nil && u.Pause.Expired(now) {
		return "expired"
	}
	if u.Pause != nil && u.Automation != model.Paused {
		return "reverted"
	}
	return u.Automation.String()
}

func runCell(u *model.Unit, _ time.Time) string {
	switch u.Run {
	case model.AwaitingApproval:
		return "awaiting"
	case model.BlockedByWindow:
		return "blocked"
	}
	return u.Run.String()
}

func ageCell(u *model.Unit, now time.Time) string {
	if u.RunSince.IsZero() {
		return "-"
	}
	return model.HumanDuration(now.Sub(u.RunSince))
}

// ShortRevision shortens a 40-hex commit to 7 characters, also in Flux's
// <ref>@sha1:<commit> form.
func ShortRevision(s string) string {
	if i := strings.LastIndex(s, "@sha1:"); i >= 0 && len(s)-i-len("@sha1:") == 40 {
		return s[len(s)-40 : len(s)-33]
	}
	if len(s) == 40 && !strings.ContainsAny(s, "/:,") {
		return s[:7]
	}
	return s
}

func syncStyle(t *themes.Theme, u *model.Unit, _ time.Time) lipgloss.Style {
	switch u.Sync {
	case model.InSync:
		return t.Good
	case model.Drifted:
		return t.Warn
	}
	return t.Dim
}

func healthStyle(t *themes.Theme, u *model.Unit, _ time.Time) lipgloss.Style {
	switch u.Health {
	case model.Healthy:
		return t.Good
	case model.Degraded:
		return t.Bad
	case model.Progressing:
		return t.Info
	case model.Missing, model.HealthSuspended:
		return t.Warn
	}
	return t.Dim
}

func automationStyle(t *themes.Theme, u *model.Unit, now time.Time) lipgloss.Style {
	switch {
	case u.Pause != nil && (u.Pause.Expired(now) || u.Automation != model.Paused):
		return t.Bad
	case u.Automation == model.Paused || u.Automation == model.Suspended:
		return t.Warn.Bold(true)
	case u.Automation == model.Manual:
		return t.Dim
	}
	return t.Good
}

func runStyle(t *themes.Theme, u *model.Unit, _ time.Time) lipgloss.Style {
	switch u.Run {
	case model.Stuck, model.Failed:
		return t.Bad
	case model.BlockedByWindow:
		return t.Warn
	case model.AwaitingApproval:
		return t.Info
	case model.Running:
		return t.Accent
	}
	return t.Dim
}

func reasonStyle(t *themes.Theme, u *model.Unit, _ time.Time) lipgloss.Style {
	if u.Run == model.Stuck || u.Run == model.Failed || len(u.ReadErrors) > 0 {
		return t.Bad.Bold(false)
	}
	return t.Dim
}

// layout decides which columns show and how wide each is at a width. The
// name column is as wide as the longest name (nameWidth), up to 48.
func layout(width, nameWidth int, multiContext bool) (cols []int, widths []int) {
	active := []int{}
	for c := 0; c < numColumns; c++ {
		if c == colContext && !multiContext {
			continue
		}
		active = append(active, c)
	}
	for {
		need := len(active) - 1 + markerWidth // gaps + the marker cells
		for _, c := range active {
			if columns[c].width > 0 {
				need += columns[c].width
			} else {
				need += columns[c].min
			}
		}
		if need <= width || len(active) <= 1 {
			break
		}
		drop, lowest := -1, 1<<30
		for i, c := range active {
			if columns[c].priority < lowest {
				drop, lowest = i, columns[c].priority
			}
		}
		active = append(active[:drop], active[drop+1:]...)
	}
	widths = make([]int, len(active))
	used, flex := len(active)-1+markerWidth, 0
	for i, c := range active {
		if columns[c].width > 0 {
			widths[i] = columns[c].width
			used += widths[i]
		} else {
			flex++
		}
	}
	spare := max(width-used, 0)
	// The name takes up to 48 columns; the reason takes the rest.
	for i, c := range active {
		if columns[c].width > 0 {
			continue
		}
		if c == colName && flex > 1 {
			widths[i] = min(max(columns[c].min, spare/2), max(columns[c].min, nameWidth), 48)
		} else if c == colName {
			widths[i] = spare
		}
	}
	for i, c := range active {
		if c == colReason {
			rest := spare
			for j, cc := range active {
				if cc == colName {
					rest -= widths[j]
				}
			}
			widths[i] = max(rest, columns[c].min)
		}
	}
	return active, widths
}
