package list

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/themes"
	"github.com/driftdeck/driftdeck/views/internal/wrapped"
)

// The status lines under the table show the cursor row's reason, and the
// stuck rule with its remedy, whole: the REASON column cuts them to fit.

// statusLabelWidth is the width of the "why" and "stuck" labels.
const statusLabelWidth = 7

// statusCache keeps the status lines of one unit at one width and theme.
type statusCache struct {
	unit    *model.Unit
	parents []model.Key
	width   int
	max     int
	theme   *themes.Theme
	lines   []string
	filled  bool
}

// statusRoom is how many lines the status may take: up to half the list,
// none on a list too short to also show a few rows.
func (m *Model) statusRoom() int {
	return min(m.height/2, m.height-1-3)
}

// statusHeight is the number of lines under the table: a rule and the
// status lines, or nothing when there is no room or no unit.
func (m *Model) statusHeight() int {
	if n := len(m.statusLines()); n > 0 {
		return n + 1
	}
	return 0
}

// statusLines lays out the cursor row's whole text.
func (m *Model) statusLines() []string {
	u, room := m.Selected(), m.statusRoom()-1 // one line for the rule above
	if u == nil || room < 1 || m.width < statusLabelWidth+10 {
		return nil
	}
	c := &m.status
	parents := m.ParentsOf(u.Key)
	if c.filled && c.unit == u && c.width == m.width && c.max == room && c.theme == m.theme && slices.Equal(c.parents, parents) {
		return c.lines
	}
	lines := statusText(m.theme, u, m.width)
	if len(parents) > 0 {
		var names []string
		for _, p := range parents {
			names = append(names, p.Ref())
		}
		lines = append(lines, wrapped.Field("under", statusLabelWidth, strings.Join(names, ", "), m.width, m.theme.Dim)...)
	}
	*c = statusCache{unit: u, parents: parents, width: m.width, max: room, theme: m.theme, lines: lines, filled: true}
	if len(c.lines) > room {
		const more = " … more in the detail"
		last := ansi.Truncate(c.lines[room-1], m.width-ansi.StringWidth(more), "")
		c.lines = append(c.lines[:room-1:room-1], last+m.theme.Dim.Render(more))
	}
	return c.lines
}

// statusText is the unit's reason and, when stuck, the rule that says so
// and what to do, each wrapped to the width.
func statusText(t *themes.Theme, u *model.Unit, width int) []string {
	var out []string
	reason := u.Reason()
	if reason != "" {
		out = append(out, wrapped.Field("why", statusLabelWidth, reason, width, t.Dim)...)
	}
	if u.Run == model.Stuck && u.StuckRule != "" && u.StuckRule != reason {
		out = append(out, wrapped.Field("stuck", statusLabelWidth, u.StuckRule, width, t.Bad)...)
	}
	if r := u.Request; r != nil {
		out = append(out, wrapped.Field("asked", statusLabelWidth, "change request "+r.String(), width, t.Warn)...)
	}
	if len(out) == 0 {
		state := strings.Join([]string{u.Sync.String(), u.Health.String(), u.Run.String()}, " · ")
		out = append(out, t.Dim.Render(ansi.Truncate(safetext.Visible(u.Key.Ref())+"  "+state, width, "…")))
	}
	return out
}
