package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// openPause opens the pause confirmation of checkout with a reason typed.
func openPause(t *testing.T, a *App) *dialog {
	t.Helper()
	selectUnit(t, a, "checkout")
	press(a, "p")
	typeText(a, "INC-5150: hotfix in place")
	press(a, "enter", "enter")
	d, ok := a.top().(*dialog)
	if !ok || d.plan == nil {
		t.Fatalf("no confirmation with a plan:\n%s", plain(a))
	}
	return d
}

// The dialog plans when it opens, to show at once what the action writes,
// again with the reason and expiry once they are typed (they are written
// too), and then only when its unit changes.
func TestDialogPlansOnOpenWithWhatIsTypedAndWhenItsUnitChanges(t *testing.T) {
	a, be := newTestApp(t, 100, 30)
	d := openPause(t, a)
	if be.plans != 2 {
		t.Fatalf("opening the dialog and typing the reason planned %d times, want twice: on opening, and with the reason", be.plans)
	}
	if text := flat(a); !strings.Contains(text, "paused-reason: INC-5150: hotfix in place") || strings.Contains(text, "Changed since shown") {
		t.Errorf("the plan shown must write the reason typed, without calling it a change:\n%s", plain(a))
	}
	_, cmd := a.Update(changedUnit("billing", func(u *model.Unit) { u.RunReason = "another unit changed" }))
	run(a, cmd, 0)
	if be.plans != 2 {
		t.Fatalf("a change of another unit planned again (%d plans)", be.plans)
	}
	press(a, "l") // the user moves to Yes …
	if !d.yes {
		t.Fatal("l must choose Yes")
	}
	be.version = "4712" // … then the unit changes on the cluster
	_, cmd = a.Update(changedUnit("checkout", func(u *model.Unit) { u.Argo.Prune = false }))
	run(a, cmd, 0)
	if be.plans != 3 {
		t.Fatalf("a change of the dialog's unit must plan again (%d plans)", be.plans)
	}
	if d.yes {
		t.Error("a changed plan must need confirming again: the choice goes back to No")
	}
	text := flat(a)
	for _, want := range []string{"Changed since shown", `writes metadata.annotations.driftdeck.io/paused-previous: {"prune":false,"selfHeal":true}`, "resourceVersion 4712"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog does not say %q:\n%s", want, plain(a))
		}
	}
}

// pressHoldingPlans is press with the plans' answers held back in held.
func pressHoldingPlans(a *App, held *[]planMsg, keys ...string) {
	for _, k := range keys {
		_, cmd := a.Update(keyMsg(k))
		runHoldingPlans(a, cmd, 0, held)
	}
}

// A reason typed before the first plan came asks for a plan with it: the
// first answer is shown while that one is on its way, instead of the
// dialog reading the object until both came, and a yes given then writes
// the plan with the reason once it comes.
func TestTheFirstPlanIsShownWhileThePlanWithTheReasonIsOnItsWay(t *testing.T) {
	a, be := newTestApp(t, 100, 30)
	selectUnit(t, a, "checkout")
	var held []planMsg
	pressHoldingPlans(a, &held, "p")
	typeText(a, "INC-5150")
	pressHoldingPlans(a, &held, "enter", "enter")
	if len(held) != 2 || !strings.Contains(flat(a), "reading the object…") {
		t.Fatalf("%d plans on their way, want two (on opening, with the reason), the dialog reading the object:\n%s", len(held), plain(a))
	}
	_, cmd := a.Update(held[0])
	run(a, cmd, 0)
	if text := flat(a); !strings.Contains(text, "Will write:") || strings.Contains(text, "reading the object…") {
		t.Fatalf("the first plan came and is not shown:\n%s", plain(a))
	}
	press(a, "y")
	if len(be.sent) != 0 {
		t.Fatalf("a yes wrote before the plan with the reason came: %+v", be.sent[0].Request)
	}
	_, cmd = a.Update(held[1])
	run(a, cmd, 0)
	if len(be.sent) != 1 || be.sent[0].Request.Reason != "INC-5150" {
		t.Fatalf("the yes given while the plan with the reason was on its way wrote %d plans, want it once, with the reason:\n%s", len(be.sent), plain(a))
	}
}

// An answer to a plan of another dialog is never shown in this one.
func TestAnotherDialogsPlanIsNotShown(t *testing.T) {
	a, _ := newTestApp(t, 100, 30)
	selectUnit(t, a, "checkout")
	var held []planMsg
	pressHoldingPlans(a, &held, "p", "esc")
	selectUnit(t, a, "billing")
	pressHoldingPlans(a, &held, "p")
	_, cmd := a.Update(held[0])
	run(a, cmd, 0)
	if text := flat(a); !strings.Contains(text, "reading the object…") || strings.Contains(text, "Will write:") {
		t.Fatalf("the pause of billing shows the plan of checkout's closed dialog:\n%s", plain(a))
	}
}

func TestFocusedButtonShowsWithoutColour(t *testing.T) {
	be := &fakeBackend{}
	a := New(Options{Backend: be, Theme: "no-color", Now: func() time.Time { return fixedNow }, Initial: store.Batch{Units: fixtureUnits()}})
	a.Update(teaSize(100, 30))
	openPause(t, a)
	if got := ansi.Strip(a.View().Content); !strings.Contains(got, "> [ No ] <") {
		t.Fatalf("the focused No is not marked in text:\n%s", got)
	}
	press(a, "l")
	if got := ansi.Strip(a.View().Content); !strings.Contains(got, "> [ Yes ] <") || strings.Contains(got, "> [ No ] <") {
		t.Fatalf("the focus did not move to Yes visibly:\n%s", got)
	}
}

func TestUnlockKeepsPendingOperationsUnlessChosen(t *testing.T) {
	for _, forget := range []bool{false, true} {
		a, be := newTestApp(t, 120, 36)
		be.pending = []pulumistate.PendingOperation{
			{Type: "creating", URN: "urn:pulumi:prod::dns::aws:route53/record:Record::www"},
			{Type: "updating", URN: "urn:pulumi:prod::dns::aws:route53/zone:Zone::main"},
		}
		selectUnit(t, a, "dns-zones")
		press(a, "L")
		text := flat(a)
		for _, want := range []string{"lock held by pid 4242", "[ ] also forget the 2 pending operation(s)", "creating urn:pulumi:prod::dns::aws:route53/record:Record::www", "updating urn:pulumi:prod::dns::aws:route53/zone:Zone::main"} {
			if !strings.Contains(text, want) {
				t.Fatalf("the unlock dialog does not say %q:\n%s", want, plain(a))
			}
		}
		typeText(a, "INC-7: runner died")
		press(a, "enter")
		if forget {
			press(a, "space")
			if !strings.Contains(flat(a), "[x] also forget") {
				t.Fatalf("space did not tick the choice:\n%s", plain(a))
			}
		}
		press(a, "enter", "y")
		if len(be.applied) != 1 {
			t.Fatalf("forget=%v: unlock applied %d plans:\n%s", forget, len(be.applied), plain(a))
		}
		if got := be.applied[0].ClearPending; got != forget {
			t.Errorf("forget=%v: the applied plan clears pending operations: %v (plans asked: %v)", forget, got, be.unstickCalls)
		}
	}
}

// A bulk write whose answer was lost and could not be read back is neither
// applied nor failed on the report: it says unknown, and why.
func TestBulkReportSaysUnknownForAWriteOfUnknownOutcome(t *testing.T) {
	a, _ := newTestApp(t, 120, 30)
	k := model.Key{Context: "prod", Engine: model.EngineArgoCD, Namespace: "shop", Name: "cart"}
	d := bulkReport(a, bulkMsg{kind: actions.Pause, outcomes: []actions.BulkOutcome{
		{Key: k, Outcome: actions.OutcomeUnknown, Why: "whether it was applied is not known"},
	}})
	var text []string
	for _, l := range d.report {
		text = append(text, l.text)
	}
	got := strings.Join(text, "\n")
	if !strings.Contains(got, "0 applied, 0 skipped, 0 failed, 1 unknown") || !strings.Contains(got, "? unknown  argocd/shop/cart: whether it was applied is not known") || !d.report[0].bad {
		t.Fatalf("report:\n%s", got)
	}
}

// A confirmation the backend refuses to plan shows why and offers nothing
// to confirm: no reason to type, no Yes, only esc.
func TestARefusedPlanOffersNoYesOnlyEsc(t *testing.T) {
	a, be := newTestApp(t, 100, 30)
	be.planRefusal = writeguard.Refusef("checkout is source-controller's: is source-controller installed?")
	selectUnit(t, a, "checkout")
	press(a, "p")
	screen := plain(a)
	if !strings.Contains(screen, "Cannot pause: checkout is source-controller's") || !strings.Contains(screen, "Nothing will be written. esc closes.") {
		t.Fatalf("a refused plan must say why and that nothing will be written:\n%s", screen)
	}
	if strings.Contains(screen, "[ Yes ]") || strings.Contains(screen, "Reason:") || !strings.Contains(lastLine(screen), "esc close") {
		t.Fatalf("a refused plan must offer neither a reason nor a Yes, only esc:\n%s", screen)
	}
	typeText(a, "y")
	press(a, "enter", "y")
	if _, open := a.top().(*dialog); !open || len(be.executed) != 0 {
		t.Fatalf("keys other than esc must neither close the refusal nor write (%d executed)", len(be.executed))
	}
	press(a, "esc")
	if _, open := a.top().(*dialog); open {
		t.Fatalf("esc must close the refusal:\n%s", plain(a))
	}
}

// When the plan changes under a confirmation whose plan is scrolled (a
// small terminal), the notice that nothing was written and that it needs
// confirming again shows beside the buttons, in view.
func TestAChangedPlanSaysSoBesideTheButtonsWhenThePlanScrolls(t *testing.T) {
	a, be := newTestApp(t, 80, 24)
	openPause(t, a)
	press(a, "l")
	be.version = "4712"
	_, cmd := a.Update(changedUnit("checkout", func(u *model.Unit) { u.Argo.Prune = false }))
	run(a, cmd, 0)
	screen := plain(a)
	if !strings.Contains(screen, "pgdown/pgup scroll") {
		t.Fatalf("the plan does not scroll at 80x24, so this shows nothing:\n%s", screen)
	}
	if !strings.Contains(screen, "! The plan changed since shown (see its end): nothing was written;") || !strings.Contains(screen, "confirm again") {
		t.Errorf("the screen does not say the plan changed:\n%s", screen)
	}
}
