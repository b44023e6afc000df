// Package preview is the screen of a Pulumi preview or apply: each resource
// step appears as its event arrives (operation, type, name, the properties
// that change, what forces a replacement), then the summary.
package preview

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/themes"
	"github.com/driftdeck/driftdeck/views/internal/wrapped"
)

// Model holds the steps seen so far.
type Model struct {
	theme         *themes.Theme
	width, height int
	title         string
	steps         []pulumirun.Step // by Seq
	rendered      [][]string       // each step's lines, rendered once
	index         map[int]int
	diags         []pulumirun.Diagnostic
	summary       *pulumirun.Summary
	status        string
	err           error
	offset        int
	follow        bool
}

// New starts an empty screen.
func New(theme *themes.Theme, title string) *Model {
	return &Model{theme: theme, title: title, index: map[int]int{}, follow: true, status: "running…"}
}

// SetTheme switches palettes.
func (m *Model) SetTheme(t *themes.Theme) {
	m.theme = t
	for i := range m.rendered {
		m.rendered[i] = m.stepLines(m.steps[i])
	}
}

// SetSize sets the drawing area; steps wrap to the width, so a new width
// lays them out again.
func (m *Model) SetSize(w, h int) {
	if w != m.width {
		m.width = w
		for i := range m.rendered {
			m.rendered[i] = m.stepLines(m.steps[i])
		}
	}
	m.height = h
}

// SetTitle names what runs (preview, apply).
func (m *Model) SetTitle(t string) { m.title = t }

// Reset clears the steps for a new run with the given title.
func (m *Model) Reset(title string) {
	*m = Model{theme: m.theme, width: m.width, height: m.height, title: title, index: map[int]int{}, follow: true, status: "running…"}
}

// Add takes one event. A step with a Seq seen before replaces its line.
func (m *Model) Add(e pulumirun.Event) {
	switch {
	case e.Step != nil:
		if i, ok := m.index[e.Step.Seq]; ok {
			m.steps[i], m.rendered[i] = *e.Step, m.stepLines(*e.Step)
			return
		}
		m.index[e.Step.Seq] = len(m.steps)
		m.steps = append(m.steps, *e.Step)
		m.rendered = append(m.rendered, m.stepLines(*e.Step))
	case e.Diag != nil && (e.Diag.Severity == "error" || e.Diag.Severity == "warning"):
		m.diags = append(m.diags, *e.Diag)
	case e.Summary != nil:
		m.summary = e.Summary
	}
}

// Done ends the run with its outcome.
func (m *Model) Done(status string, err error) { m.status, m.err = status, err }

// Scroll moves the view; scrolling to the end follows new steps again.
func (m *Model) Scroll(n int) {
	lines := len(m.body())
	m.offset = min(max(m.offset+n, 0), max(lines-m.room(), 0))
	m.follow = m.offset >= lines-m.room()
}

// Changes counts the steps that change something.
func (m *Model) Changes() int {
	n := 0
	for _, s := range m.steps {
		if s.Op != pulumirun.OpSame {
			n++
		}
	}
	return n
}

func (m *Model) room() int { return max(m.height-1-len(m.footer()), 1) }

// footer is the run's status, or its error whole: wrapped over up to half
// the screen, since it is what the user needs to read.
func (m *Model) footer() []string {
	if m.err == nil {
		return []string{m.theme.Info.Render(ansi.Truncate(safetext.Visible(m.status), m.width, "…"))}
	}
	lines := wrapped.Lines(m.err.Error(), m.width)
	if limit := max(m.height/2, 1); len(lines) > limit {
		lines = lines[:limit]
		lines[limit-1] = ansi.Truncate(lines[limit-1], m.width-1, "") + "…"
	}
	for i, l := range lines {
		lines[i] = m.theme.Bad.Render(l)
	}
	return lines
}

// View renders exactly height lines.
func (m *Model) View() string {
	t := m.theme
	head := t.Title.Render(safetext.Visible(m.title)) + "  " + t.Dim.Render(fmt.Sprintf("%d steps, %d changing", len(m.steps), m.Changes()))
	footer := m.footer()
	body := m.body()
	if m.follow {
		m.offset = max(len(body)-m.room(), 0)
	}
	lines := wrapped.Hang(head, m.width, 2)
	for i := m.offset; i < len(body) && len(lines) < m.height-len(footer); i++ {
		lines = append(lines, body[i])
	}
	for len(lines) < m.height-len(footer) {
		lines = append(lines, "")
	}
	lines = append(lines, footer...)
	return strings.Join(lines[:max(m.height, 1)], "\n")
}

func (m *Model) body() []string {
	t := m.theme
	var out []string
	for _, lines := range m.rendered {
		out = append(out, lines...)
	}
	for _, d := range m.diags {
		st := t.Warn
		if d.Severity == "error" {
			st = t.Bad
		}
		for _, l := range wrapped.Lines(d.Severity+": "+strings.TrimSpace(d.Message), max(m.width, 20)) {
			out = append(out, st.Render(l))
		}
	}
	if m.summary != nil {
		out = append(out, "")
		out = append(out, wrapped.Hang(t.Bold.Render("Summary: ")+m.summary.Text()+t.Dim.Render(fmt.Sprintf(" (%s, %s)", safetext.Visible(m.summary.Result), m.summary.Duration)), m.width, 9)...)
	}
	return out
}

// stepLines renders one step: its line, then its property changes.
func (m *Model) stepLines(s pulumirun.Step) []string {
	if s.Op == pulumirun.OpSame {
		return nil
	}
	t := m.theme
	st := t.Info
	switch s.Op {
	case pulumirun.OpCreate:
		st = t.DiffAdd
	case pulumirun.OpDelete:
		st = t.DiffDel
	case pulumirun.OpReplace:
		st = t.Warn
	}
	mark := ""
	if s.State == pulumirun.Running {
		mark = t.Dim.Render(" …")
	} else if s.State == pulumirun.Failed {
		mark = t.Bad.Render(" failed")
	}
	head := st.Render(fmt.Sprintf("%s %-8s", s.Op.Sign(), safetext.Visible(string(s.Op)))) + " " + t.Dim.Render(safetext.Visible(s.Type)) + " " + t.Bold.Render(safetext.Visible(s.Name)) + mark
	out := wrapped.Hang(head, m.width, 12)
	// A changed value is what the approval applies: wrapped whole under
	// its property, never cut at the screen's edge.
	for _, d := range s.Diffs {
		out = append(out, m.indented(6, d.String(), lipgloss.NewStyle())...)
	}
	if len(s.ReplaceKeys) > 0 {
		out = append(out, m.indented(6, "replaced because of: "+strings.Join(s.ReplaceKeys, ", "), t.Warn)...)
	}
	return out
}

// indented is text from outside wrapped at an indent, its continuation
// lines two further in, each line styled.
func (m *Model) indented(indent int, text string, st lipgloss.Style) []string {
	lines := wrapped.Lines(text, max(m.width, 20)-indent-2)
	for i, l := range lines {
		pad := indent
		if i > 0 {
			pad += 2
		}
		lines[i] = strings.Repeat(" ", pad) + st.Render(l)
	}
	return lines
}
