package preview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/themes"
)

func step(seq int, op pulumirun.Op, name string, diffs ...pulumirun.PropertyDiff) pulumirun.Event {
	return pulumirun.Event{Step: &pulumirun.Step{Seq: seq, Op: op, Type: "pulumi:index:Stash", Name: name, URN: "urn:" + name, Diffs: diffs, State: pulumirun.Planned}}
}

func TestStepsShowAsTheyArrive(t *testing.T) {
	m := New(themes.NoColor(), "preview of pulumi/infra/net")
	m.SetSize(100, 12)
	events := []pulumirun.Event{
		step(1, pulumirun.OpCreate, "logs"),
		step(2, pulumirun.OpUpdate, "settings", pulumirun.PropertyDiff{Path: "value.size", Kind: pulumirun.DiffUpdate, Old: "1", New: "2"}),
		step(3, pulumirun.OpReplace, "cert", pulumirun.PropertyDiff{Path: "input", Kind: pulumirun.DiffUpdate, Old: "[secret]", New: "[secret]", Replace: true}),
	}
	for i, e := range events {
		m.Add(e)
		screen := ansi.Strip(m.View())
		if !strings.Contains(screen, e.Step.Name) {
			t.Fatalf("after event %d the screen lacks %s:\n%s", i, e.Step.Name, screen)
		}
		if got := strings.Count(screen, "\n") + 1; got != 12 {
			t.Fatalf("%d lines, want 12", got)
		}
	}
	screen := ansi.Strip(m.View())
	for _, want := range []string{"+  create", "~  update", "value.size: 1 => 2", "+- replace", "(forces replacement)", "3 steps, 3 changing"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	// The same step again (a replacement's later part) updates its line.
	m.Add(step(3, pulumirun.OpReplace, "cert-renamed"))
	if screen := ansi.Strip(m.View()); strings.Contains(screen, "cert ") || !strings.Contains(screen, "cert-renamed") {
		t.Fatalf("a step seen again must replace its line:\n%s", screen)
	}
	m.Add(pulumirun.Event{Summary: &pulumirun.Summary{Changes: map[pulumirun.Op]int{pulumirun.OpCreate: 1, pulumirun.OpUpdate: 1, pulumirun.OpReplace: 1}, Result: "succeeded"}})
	m.Done("preview done", nil)
	if screen := ansi.Strip(m.View()); !strings.Contains(screen, "1 to create, 1 to replace, 1 to update") || !strings.Contains(screen, "preview done") {
		t.Fatalf("summary missing:\n%s", screen)
	}
}

func TestLongPreviewsFollowTheNewestStep(t *testing.T) {
	m := New(themes.Dark(), "preview")
	m.SetSize(80, 10)
	for i := 1; i <= 100; i++ {
		m.Add(step(i, pulumirun.OpCreate, fmt.Sprintf("res-%03d", i)))
	}
	screen := ansi.Strip(m.View())
	if !strings.Contains(screen, "res-100") || strings.Contains(screen, "res-001") {
		t.Fatalf("the view must follow the newest step:\n%s", screen)
	}
	m.Scroll(-1000)
	if screen := ansi.Strip(m.View()); !strings.Contains(screen, "res-001") {
		t.Fatalf("scrolling up shows the first steps:\n%s", screen)
	}
	for _, l := range strings.Split(m.View(), "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Fatalf("line wider than 80: %q", l)
		}
	}
}

// BenchmarkPreviewStream feeds 1,000 steps one by one and renders after
// each, as the screen does while a preview streams in.
func BenchmarkPreviewStream(b *testing.B) {
	events := make([]pulumirun.Event, 1000)
	for i := range events {
		events[i] = step(i+1, pulumirun.OpUpdate, fmt.Sprintf("res-%04d", i), pulumirun.PropertyDiff{Path: "value", Kind: pulumirun.DiffUpdate, Old: "a", New: "b"})
	}
	b.ReportAllocs()
	for b.Loop() {
		m := New(themes.Dark(), "preview")
		m.SetSize(120, 40)
		for _, e := range events {
			m.Add(e)
			_ = m.View()
		}
	}
}

func TestAFailedRunShowsItsErrorWholeAndEscaped(t *testing.T) {
	m := New(themes.Dark(), "preview of pulumi/infra/net")
	m.SetSize(80, 16)
	m.Add(step(1, pulumirun.OpCreate, "logs"))
	m.Add(pulumirun.Event{Diag: &pulumirun.Diagnostic{Severity: "error", Message: "provider said \x1b]0;pwned\x07 no"}})
	err := fmt.Errorf("pulumi preview failed: the stack acme/net/prod is locked by 1 lock(s): created by ci@runner-7 (pid 4242) at 2026-11-29T03:10:00Z; break it with driftdeck unlock \x1b]52;c;aGk=\x07 once its run is dead")
	m.Done("", err)
	out := m.View()
	if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x07") {
		t.Fatal("an OSC sequence from the run reached the terminal")
	}
	if got := strings.Count(out, "\n") + 1; got != 16 {
		t.Fatalf("%d lines, want 16", got)
	}
	text := strings.Join(strings.Fields(ansi.Strip(out)), " ")
	for _, want := range []string{
		`pulumi preview failed: the stack acme/net/prod is locked by 1 lock(s): created by ci@runner-7 (pid 4242) at 2026-11-29T03:10:00Z; break it with driftdeck unlock \x1b]52;c;aGk=\x07 once its run is dead`,
		`error: provider said \x1b]0;pwned\x07 no`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the screen lacks %q:\n%s", want, ansi.Strip(out))
		}
	}
}

// The value an approval would apply is on screen whole, however long,
// wrapped under its property instead of cut at the width.
func TestChangedValueIsShownWholeAt80Columns(t *testing.T) {
	old := `{"name": "acme-analytics-events-prod", "retentionDays": 14, "versioning": true, "labels": {"team": "data-platform", "cost-center": "4711"}}`
	nu := strings.Replace(old, `"retentionDays": 14`, `"retentionDays": 30`, 1)
	m := New(themes.Dark(), "preview of pulumi/infra/analytics-preview")
	m.SetSize(80, 24)
	m.Add(step(1, pulumirun.OpUpdate, "events-bucket", pulumirun.PropertyDiff{Path: "input", Kind: pulumirun.DiffUpdate, Old: old, New: nu}))
	out := m.View()
	if got, want := strings.Join(strings.Fields(ansi.Strip(out)), ""), strings.Join(strings.Fields("input: "+old+" => "+nu), ""); !strings.Contains(got, want) {
		t.Errorf("the change is not whole:\n%s", ansi.Strip(out))
	}
	for i, l := range strings.Split(out, "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("line %d is %d wide", i, ansi.StringWidth(l))
		}
	}
}
