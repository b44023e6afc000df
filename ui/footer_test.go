package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The footer names each action the row can do now, and on a narrow window
// leaves whole hints out rather than cutting the help key off.
func TestFooterNamesTheActionsOfTheRow(t *testing.T) {
	a, _ := newTestApp(t, 200, 30)
	selectUnit(t, a, "checkout")
	press(a, "k", "j") // moving there asks what it can do
	footer := lastLine(plain(a))
	for _, want := range []string{"s sync", "r refresh", "R hard refresh", "p pause", "B rollback", "? help"} {
		if !strings.Contains(footer, want) {
			t.Errorf("the footer lacks %q: %q", want, footer)
		}
	}
	a.Update(teaSize(80, 24))
	footer = lastLine(plain(a))
	if w := ansi.StringWidth(footer); w > 80 || strings.Contains(footer, "…") {
		t.Errorf("at 80 columns the footer is %d wide or cut: %q", w, footer)
	}
	for _, want := range []string{"enter open", "a actions", "s sync", "? help"} {
		if !strings.Contains(footer, want) {
			t.Errorf("at 80 columns the footer lacks %q: %q", want, footer)
		}
	}
}
