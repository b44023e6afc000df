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

// The list says when it is drawn differently with time alone: the frame is
// the same until that moment and differs at it, for ages of every size, a
// pause's expiry and a highlight's end; with none of them, never.
func TestTheListSaysWhenTimeChangesIt(t *testing.T) {
	for _, c := range []struct {
		name    string
		unit    func(*model.Unit)
		changed bool // the unit changed at now: its new cells are lit
		changes int  // the changes seen in the first 40, at most
	}{
		{"seconds", func(x *model.Unit) { x.RunSince = now.Add(-40*time.Second - 300*time.Millisecond) }, false, 40},
		{"minutes", func(x *model.Unit) { x.RunSince = now.Add(-5*time.Hour - 17*time.Second) }, false, 40},
		{"hours and days", func(x *model.Unit) { x.RunSince = now.Add(-40*time.Hour - 3*time.Minute) }, false, 40},
		{"a pause's expiry", func(x *model.Unit) {
			x.RunSince, x.Automation, x.Pause = time.Time{}, model.Paused, &model.PauseRecord{Until: now.Add(90 * time.Minute)}
		}, false, 1},
		{"a highlight's end", func(x *model.Unit) { x.RunSince = time.Time{} }, true, 1},
		{"nothing", func(x *model.Unit) { x.RunSince = time.Time{} }, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := New(themes.Dark())
			m.SetSort(ByName)
			m.SetSize(140, 6)
			// The cursor's row, first by name, shows no time.
			cursor := u(model.EngineArgoCD, "argocd", "a-cursor", model.Idle, func(x *model.Unit) { x.RunSince = time.Time{} })
			x := u(model.EngineArgoCD, "argocd", "api", model.Idle, c.unit)
			m.SetUnits([]*model.Unit{cursor, x}, nil, now)
			if c.changed {
				y := *x
				y.Sync = model.Drifted
				m.SetUnits([]*model.Unit{cursor, &y}, map[model.Key]bool{y.Key: true}, now)
			}
			changes := 0
			for at := now; changes < 40; changes++ {
				next := m.NextChange(at)
				if next.IsZero() {
					break
				}
				if !next.After(at) {
					t.Fatalf("at %v: next change %v", at, next)
				}
				frame := m.View(at)
				for k := 1; k < 8; k++ {
					if m.View(at.Add(next.Sub(at)*time.Duration(k)/8)) != frame {
						t.Fatalf("at %v the list changed before %v, the change it said", at, next)
					}
				}
				if m.View(next) == frame {
					t.Fatalf("at %v the list said it changes at %v, and it did not", at, next)
				}
				at = next
			}
			if changes != c.changes {
				t.Fatalf("%d changes, want %d", changes, c.changes)
			}
		})
	}
}
