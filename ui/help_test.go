package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The help explains the list's columns and the words they show.
func TestHelpHasALegendOfTheColumns(t *testing.T) {
	a, _ := newTestApp(t, 200, 40)
	press(a, "?")
	help := strings.Join(strings.Fields(ansi.Strip(strings.Join(a.top().(*helpScreen).lines(a), " "))), " ")
	for _, want := range []string{
		"Columns of the list",
		"SYNC in sync · drifted",
		"AUTO auto (applies changes itself) · self-heal (also undoes live edits)",
		"reverted (paused by driftdeck, but the automation is back on)",
		"RUN idle · running · stuck",
		"blocked (a sync window holds it)",
		"REV the revision applied last",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("the help lacks %q", want)
		}
	}
}
