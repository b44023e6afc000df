package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// A bulk report longer than the screen scrolls, like a confirmation: every
// unit's outcome can be read at 80x24, the count stays on top, and a key
// that does not scroll closes it.
func TestABulkReportScrollsToItsLastUnit(t *testing.T) {
	a, _ := newTestApp(t, 80, 24)
	var outcomes []actions.BulkOutcome
	for i := range 40 {
		k := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: "argocd", Name: fmt.Sprintf("app-%02d", i)}
		outcomes = append(outcomes, actions.BulkOutcome{Key: k, Outcome: actions.OutcomeSkipped, Why: "already paused"})
	}
	a.push(bulkReport(a, bulkMsg{kind: actions.Pause, outcomes: outcomes}))
	s := plain(a)
	if !strings.Contains(s, "lines 1-") || !strings.Contains(s, "of 40") || strings.Contains(s, "app-39") {
		t.Fatalf("a 40-unit report at 80x24 does not say where it is:\n%s", s)
	}
	press(a, "G")
	s = plain(a)
	if !strings.Contains(s, "skipped  argocd/argocd/app-39: already paused") || !strings.Contains(s, "pause of 40 units: 0 applied, 40 skipped, 0 failed") {
		t.Fatalf("G does not show the last unit under the count:\n%s", s)
	}
	press(a, "enter")
	if strings.Contains(plain(a), "40 skipped") {
		t.Error("enter did not close the report")
	}
}

// A report that fits has nothing to scroll: every key closes it, j too.
func TestAShortBulkReportClosesOnAnyKey(t *testing.T) {
	a, _ := newTestApp(t, 120, 40)
	k := model.Key{Context: "test", Engine: model.EngineArgoCD, Namespace: "argocd", Name: "one"}
	a.push(bulkReport(a, bulkMsg{kind: actions.Refresh, outcomes: []actions.BulkOutcome{{Key: k, Outcome: actions.OutcomeSkipped, Why: "already requested"}}}))
	if s := plain(a); !strings.Contains(s, "any key closes") {
		t.Fatalf("a short report does not say any key closes it:\n%s", s)
	}
	press(a, "j")
	if strings.Contains(plain(a), "already requested") {
		t.Error("j did not close a report with nothing to scroll")
	}
}
