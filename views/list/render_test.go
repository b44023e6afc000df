package list

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
)

// lineOf is the plain text of the line showing name.
func lineOf(t *testing.T, view, name string) string {
	t.Helper()
	for _, l := range strings.Split(ansi.Strip(view), "\n") {
		if strings.Contains(l, name) {
			return l
		}
	}
	t.Fatalf("no line shows %s in:\n%s", name, ansi.Strip(view))
	return ""
}

// Rows are drawn once and reused; each thing a row shows must still reach
// the screen.
func TestRowsAreRedrawnWhenWhatTheyShowChanges(t *testing.T) {
	m := New(themes.Dark())
	m.SetSort(ByName)
	m.SetSize(120, 10)
	units := fixture()
	m.SetUnits(units, nil, now)
	first := m.View(now)
	if again := m.View(now); again != first {
		t.Fatal("the same frame drew differently")
	}

	// The clock moves the age column.
	if l := lineOf(t, m.View(now.Add(2*time.Hour)), "billing"); !strings.Contains(l, "121m") {
		t.Errorf("age after two hours: %q", l)
	}

	// A changed unit is drawn from its new state, highlighted while lit.
	changed := *units[1]
	changed.RunReason = "sync running for 40m"
	next := append([]*model.Unit(nil), units...)
	next[1] = &changed
	m.SetUnits(next, map[model.Key]bool{changed.Key: true}, now)
	lit := m.View(now)
	if l := lineOf(t, lit, "billing"); !strings.Contains(l, "40m") {
		t.Errorf("changed reason not drawn: %q", l)
	}
	if settled := m.View(now.Add(HighlightFor + time.Second)); settled == lit {
		t.Error("the highlight did not end")
	}

	// Marks and the cursor.
	m.MoveTo(2)
	m.ToggleMark()
	if l := lineOf(t, m.View(now), "web"); !strings.Contains(l, "✓") {
		t.Errorf("marked row drawn without its mark: %q", l)
	}

	// A theme switch redraws every row.
	before := m.View(now)
	m.SetTheme(themes.NoColor())
	if after := m.View(now); after == before || ansi.Strip(after) != ansi.Strip(before) {
		t.Error("a theme switch must change the colours and nothing else")
	}
}
