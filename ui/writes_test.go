package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
)

func TestConfirmedWriteIsBoundToTheShownPlan(t *testing.T) {
	a, be := newTestApp(t, 100, 30)
	d := openPause(t, a)
	shown := d.plan
	press(a, "y")
	if len(be.sent) != 1 || len(be.executed) != 1 {
		t.Fatalf("sent %d plans and wrote %d times, want the one shown, once", len(be.sent), len(be.executed))
	}
	if got := be.sent[0]; got != shown || got.ResourceVersion != "4711" || got.Request.Reason != "INC-5150: hotfix in place" {
		t.Errorf("the plan sent is not the plan shown: version %q, reason %q", got.ResourceVersion, got.Request.Reason)
	}
}

func TestObjectChangedBeforeTheWriteShowsTheNewPlanToConfirmAgain(t *testing.T) {
	a, be := newTestApp(t, 100, 30)
	d := openPause(t, a)
	be.version = "4712" // changed on the cluster; no batch has told the UI yet
	press(a, "y")
	if len(be.executed) != 0 {
		t.Fatalf("a write went through on a changed object: %v", be.executed)
	}
	if a.top() != screen(d) || d.yes {
		t.Fatalf("the dialog must stay, back on No:\n%s", plain(a))
	}
	text := flat(a)
	for _, want := range []string{"nothing was written", `paused-previous: {"prune":false,"selfHeal":true}`, "resourceVersion 4712", "Changed since shown"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog does not say %q:\n%s", want, plain(a))
		}
	}
	press(a, "y")
	if len(be.sent) != 1 || be.sent[0].ResourceVersion != "4712" {
		t.Fatalf("confirming the new plan must write it at 4712: %v", be.executed)
	}
}

func TestRevertFoundAfterTheWriteIsToasted(t *testing.T) {
	a, be := newTestApp(t, 100, 30)
	be.mayRevert = "ApplicationSet/storefront"
	be.reverted = []string{"reverted by ApplicationSet/storefront within 3s: spec.syncPolicy.automated.enabled is true again"}
	openPause(t, a)
	press(a, "y")
	if len(be.settled) != 1 {
		t.Fatalf("the write's result was checked %d times after the write, want once", len(be.settled))
	}
	if !strings.Contains(flat(a), "reverted by ApplicationSet/storefront within 3s") {
		t.Errorf("the revert is not shown:\n%s", plain(a))
	}
}

func TestBulkRefreshReportsSkippedUnitsAsSkipped(t *testing.T) {
	a, be := newTestApp(t, 120, 36)
	be.nothingToDo = map[string]bool{"billing": true}
	for _, name := range []string{"billing", "checkout", "dns-zones"} {
		selectUnit(t, a, name)
		press(a, "space")
	}
	press(a, "r")
	if d, ok := a.top().(*dialog); !ok || d.kind != dlgBulk || len(d.units) != 3 {
		t.Fatalf("r with 3 marks must confirm a bulk refresh of the 3:\n%s", plain(a))
	}
	typeText(a, "INC-9: compare again")
	press(a, "enter", "y")
	if len(be.bulks) != 1 || be.bulks[0].Kind != actions.Refresh || len(be.bulks[0].Keys) != 3 {
		t.Fatalf("bulk requests: %+v", be.bulks)
	}
	text := flat(a)
	for _, want := range []string{"refresh of 3 units: 1 applied, 2 skipped, 0 failed", "skipped pulumi/infra/dns-zones: refresh is not possible for pulumi units", "skipped argocd/argocd/billing: nothing to do"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report does not say %q:\n%s", want, plain(a))
		}
	}
	if strings.Contains(text, "✗") {
		t.Errorf("nothing failed, yet the report shows a failure:\n%s", plain(a))
	}
	if marked := a.list().m.Marked(); len(marked) != 0 {
		t.Errorf("the marks a bulk action used are still on %d units", len(marked))
	}
}

func TestUnlockIsOfferedInTheMenuAndSaysWhatADryRunWouldDo(t *testing.T) {
	a, be := newTestApp(t, 120, 36)
	be.pending = []pulumistate.PendingOperation{{Type: "creating", URN: "urn:pulumi:prod::dns::aws:route53/record:Record::www"}}
	be.dryRun = true
	selectUnit(t, a, "dns-zones")
	press(a, "a")
	d := a.top().(*dialog)
	for d.cursor < len(d.avail) && d.avail[d.cursor].Kind != actions.Unlock {
		press(a, "j")
	}
	if d.cursor == len(d.avail) || !strings.Contains(plain(a), "> unlock") {
		t.Fatalf("unlock is not in the menu of a Stack:\n%s", plain(a))
	}
	press(a, "enter")
	if _, ok := a.top().(*unlockDialog); !ok {
		t.Fatalf("enter on unlock must open the unlock dialog:\n%s", plain(a))
	}
	typeText(a, "INC-7")
	press(a, "enter", "enter", "y")
	if len(be.applied) != 1 || be.applied[0].ClearPending {
		t.Fatalf("unlock from the menu applied %d plans (forgetting pending: %v)", len(be.applied), len(be.applied) > 0 && be.applied[0].ClearPending)
	}
	if !strings.Contains(plain(a), "dry run, nothing written; would: break") {
		t.Errorf("a dry-run unlock does not say what it would do:\n%s", plain(a))
	}
}

func TestAfterAWriteTheNextKeyAsksWhatIsPossibleAgain(t *testing.T) {
	a, be := newTestApp(t, 100, 30)
	openPause(t, a)
	asked := be.available
	press(a, "y")
	be.whyNot = map[actions.Kind]string{actions.Pause: "already paused by oncall@example.com"}
	press(a, "p")
	if be.available == asked {
		t.Fatal("the key after a write used what was possible before it")
	}
	if !topIs[*listScreen](a) || !strings.Contains(plain(a), "already paused by oncall@example.com") {
		t.Fatalf("p after the pause must say it is paused already:\n%s", plain(a))
	}
}

// A check that could not be made (the cluster did not answer) is not kept:
// the footer still offers the row's keys, the key waiting on it says why,
// and the same key asks again, so a blip at start does not leave the row's
// actions refused for the session.
func TestACheckThatFailedIsAskedAgain(t *testing.T) {
	a, be := newTestApp(t, 160, 30)
	be.unsure = "cannot check permission: asking the cluster for permission (SelfSubjectAccessReview): connection reset by peer"
	selectUnit(t, a, "checkout")
	press(a, "k", "j") // moving there asks what it can do
	lines := strings.Split(plain(a), "\n")
	if footer := lines[len(lines)-1]; !strings.Contains(footer, "p pause") {
		t.Fatalf("after a failed check the footer no longer offers the row's keys: %q", footer)
	}
	press(a, "p")
	if !topIs[*listScreen](a) || !strings.Contains(plain(a), "connection reset by peer (the key asks again)") {
		t.Fatalf("p after a failed check must say why nothing opened:\n%s", plain(a))
	}
	asked := be.available
	be.unsure = ""
	press(a, "p")
	if be.available == asked {
		t.Fatal("the key after a failed check used its answer again")
	}
	if _, ok := a.top().(*dialog); !ok {
		t.Fatalf("p once the cluster answers must open the pause dialog:\n%s", plain(a))
	}
}

func TestRefreshRunsWithoutAFormAndSaysItIsDone(t *testing.T) {
	a, be := newTestApp(t, 100, 30)
	selectUnit(t, a, "billing")
	press(a, "r")
	if len(be.executed) != 1 || be.executed[0].Kind != actions.Refresh {
		t.Fatalf("r must refresh at once: %v", be.executed)
	}
	if !topIs[*listScreen](a) || !strings.Contains(plain(a), "— done") {
		t.Fatalf("the refresh is not reported:\n%s", plain(a))
	}
}

func TestPauseDialogListsTheApplicationSetWriteUnderItsObject(t *testing.T) {
	a, be := newTestApp(t, 120, 40)
	be.also = []actions.OtherWrite{{Object: "applicationset/argocd/storefront", ResourceVersion: "99", When: "before", Patch: make([]actions.Op, 3),
		Changes: []string{`spec.ignoreApplicationDifferences: + {"jsonPointers":["/spec/syncPolicy/automated/enabled"],"name":"checkout"}`}}}
	openPause(t, a)
	text := flat(a)
	for _, want := range []string{
		"spec.syncPolicy.automated.enabled: (unset, means true) → false",
		"and to applicationset/argocd/storefront, before the unit's own patch (JSON patch on resourceVersion",
		`spec.ignoreApplicationDifferences: +`,
		`{"jsonPointers":["/spec/syncPolicy/automated/enabled"],"name":"checkout"}`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the confirm dialog does not show %q:\n%s", want, plain(a))
		}
	}
}

func TestBulkPauseNamesTheApplicationSetsItAlsoWrites(t *testing.T) {
	child := func(name, owner string) *model.Unit {
		return &model.Unit{Key: model.Key{Engine: model.EngineArgoCD, Namespace: "argocd", Name: name}, Owner: owner}
	}
	units := []*model.Unit{child("web", "ApplicationSet/shop"), child("api", "ApplicationSet/shop"), child("docs", "Application/root"), child("db", "")}
	if got, want := ownerWrites(actions.Pause, units), "one ignoreApplicationDifferences entry per child to applicationset/argocd/shop (2)"; !strings.HasSuffix(got, want) {
		t.Errorf("bulk pause: %q, want it to end %q", got, want)
	}
	if got := ownerWrites(actions.Resume, units); !strings.Contains(got, "removes") || !strings.Contains(got, "applicationset/argocd/shop (2)") {
		t.Errorf("bulk resume: %q", got)
	}
	if got := ownerWrites(actions.Refresh, units); got != "" {
		t.Errorf("a refresh writes no ApplicationSet: %q", got)
	}
}

// A plan too long for the terminal scrolls between the title and what is
// asked: the reason field and the buttons stay on screen, the dialog says
// which lines it shows, and pgdown, j/k and g/G on the buttons reach the
// last line and come back.
func TestLongPlanScrollsWithTheReasonAndButtonsOnScreen(t *testing.T) {
	a, be := newTestApp(t, 100, 24)
	var changes []string
	for i := range 40 {
		changes = append(changes, fmt.Sprintf(`spec.ignoreApplicationDifferences: + {"jsonPointers":["/metadata/annotations/driftdeck.io~1paused-%d"],"name":"checkout"}`, i))
	}
	be.also = []actions.OtherWrite{{Object: "applicationset/argocd/storefront", ResourceVersion: "99", When: "before", Patch: make([]actions.Op, 40), Changes: changes}}
	openPause(t, a)
	onScreen := func(step string, wants ...string) {
		t.Helper()
		text := plain(a)
		for _, want := range append([]string{"Pause auto-sync and self-heal of argocd/argocd/checkout", "Reason:", "[ No ]", "[ Yes ]", "╰"}, wants...) {
			if !strings.Contains(text, want) {
				t.Fatalf("%s: the 24-row dialog does not show %q:\n%s", step, want, text)
			}
		}
	}
	onScreen("opened", "lines 1-", "Will write:", "pgdown/pgup scroll")
	press(a, "G")
	onScreen("G", "paused-39")
	if m := dialogPosition.FindStringSubmatch(plain(a)); m == nil || m[2] != m[3] {
		t.Fatalf("G must show the last line and say so (%q):\n%s", m, plain(a))
	}
	if strings.Contains(plain(a), "Will write:") {
		t.Fatalf("G must scroll the first lines away:\n%s", plain(a))
	}
	press(a, "g")
	onScreen("g", "lines 1-", "Will write:")
	press(a, "j")
	onScreen("j", "lines 2-")
	press(a, "k", "pgdown")
	onScreen("pgdown", "spec.ignoreApplicationDifferences")
	if strings.Contains(plain(a), "lines 1-") {
		t.Fatalf("pgdown must move a page:\n%s", plain(a))
	}
}

// The menu names each action's key; that key does it from the menu too, as
// from the list, and a key whose action cannot be taken says why.
func TestAnActionsKeyWorksInTheMenu(t *testing.T) {
	a, be := newTestApp(t, 100, 30)
	selectUnit(t, a, "checkout")
	press(a, "a")
	if _, ok := a.top().(*dialog); !ok || !strings.Contains(plain(a), "pause (p)") {
		t.Fatalf("the menu does not offer pause by its key:\n%s", plain(a))
	}
	press(a, "p")
	typeText(a, "INC-5150")
	press(a, "enter", "enter")
	d, ok := a.top().(*dialog)
	if !ok || d.plan == nil || d.plan.Request.Kind != actions.Pause {
		t.Fatalf("p in the menu did not lead to the pause's confirmation:\n%s", plain(a))
	}
	press(a, "esc")

	be.whyNot = map[actions.Kind]string{actions.Terminate: "no running operation"}
	press(a, "a", "T")
	if !strings.Contains(plain(a), "terminate: no running operation") {
		t.Errorf("T in the menu, terminate not possible, does not say why:\n%s", plain(a))
	}
}

// The freeze dialog lists, under each ApplicationSet, the exact entries the
// freeze writes there, bounded, and fits 80 columns, scrolled through.
func TestBulkFreezeShowsTheExactEntriesWrittenToTheApplicationSet(t *testing.T) {
	a, be := treeApp(t)
	a.Update(teaSize(80, 40))
	pointers := []any{"/spec/syncPolicy/automated/enabled", "/metadata/annotations/driftdeck.io~1paused-at", "/metadata/annotations/driftdeck.io~1paused-owner-hold"}
	var entries []map[string]any
	for i := range 30 {
		entries = append(entries, map[string]any{"name": fmt.Sprintf("child-%02d", i), "jsonPointers": pointers})
	}
	entries[2]["jsonPointers"] = []any{"/spec/syncPolicy/automated/selfHeal"}
	be.ownerWrites = []actions.OwnerWrite{{Object: "applicationset/argocd/storefront", OnePatch: true, Entries: entries}}
	selectUnit(t, a, "storefront")
	press(a, "F")
	text := strings.Join(readWholeBlock(t, a, "freeze"), "\n")
	words := strings.Join(strings.Fields(text), " ")
	for _, want := range []string{
		"Also adds to applicationset/argocd/storefront spec.ignoreApplicationDifferences, in one patch before any child is paused, 30 entries:",
		"+ jsonPointers: /spec/syncPolicy/automated/enabled /metadata/annotations/driftdeck.io~1paused-at /metadata/annotations/driftdeck.io~1paused-owner-hold for name: child-00, child-01",
		"+ jsonPointers: /spec/syncPolicy/automated/selfHeal for name: child-02",
		"for name: child-03, child-04,", "child-23 … and 6 more entries",
	} {
		if !strings.Contains(words, want) {
			t.Errorf("the freeze dialog does not show %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "child-24") || strings.Contains(text, "reading the exact entries") {
		t.Errorf("entries past the bound, or the placeholder, are shown:\n%s", text)
	}
	for _, l := range strings.Split(plain(a), "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a line of %d columns at 80: %q", w, l)
		}
	}
}

// A yes given while the plan of the unit as it changed is on its way waits
// for it: the plan sent is the one that came, when it writes what the one
// shown did; when it differs, nothing is written and the dialog shows it.
func TestAYesWhileTheUnitsNewPlanIsOnItsWaySendsOnlyWhatWasShown(t *testing.T) {
	t.Run("the same writes", func(t *testing.T) {
		a, be := newTestApp(t, 100, 30)
		d := openPause(t, a)
		old := d.plan
		_, replan := a.Update(changedUnit("checkout", func(u *model.Unit) { u.RunReason = "status moved" }))
		press(a, "y")
		if len(be.sent) != 0 {
			t.Fatalf("sent %d plans while the new plan was on its way", len(be.sent))
		}
		run(a, replan, 0)
		if len(be.sent) != 1 || be.sent[0] == old || be.sent[0] != d.plan {
			t.Fatalf("sent %d plans; want the one that came, not the one it replaced", len(be.sent))
		}
	})
	t.Run("other writes", func(t *testing.T) {
		a, be := newTestApp(t, 100, 30)
		d := openPause(t, a)
		be.version = "4712"
		_, replan := a.Update(changedUnit("checkout", func(u *model.Unit) { u.Argo.Prune = false }))
		press(a, "y")
		run(a, replan, 0)
		if len(be.sent) != 0 || d.yes {
			t.Fatalf("a plan that writes otherwise was sent without a new yes (%d sent)", len(be.sent))
		}
		if !strings.Contains(flat(a), "Changed since shown") {
			t.Errorf("the dialog does not show what changed:\n%s", plain(a))
		}
	})
}

// A bulk action hands the backend the plans its dialog showed, with the
// reason typed, to be written as shown.
func TestABulkActionSendsThePlansItShowed(t *testing.T) {
	a, be := newTestApp(t, 120, 36)
	for _, name := range []string{"billing", "checkout"} {
		selectUnit(t, a, name)
		press(a, "space")
	}
	press(a, "r")
	d, ok := a.top().(*dialog)
	if !ok || d.kind != dlgBulk {
		t.Fatalf("no bulk dialog:\n%s", plain(a))
	}
	typeText(a, "INC-9: compare again")
	press(a, "enter", "y")
	if len(be.bulks) != 1 || len(be.bulks[0].Shown) != 2 {
		t.Fatalf("bulk requests: %+v", be.bulks)
	}
	for k, p := range be.bulks[0].Shown {
		if p != d.unitPlans[k].plan || p.Request.Reason != "INC-9: compare again" {
			t.Errorf("%s: the plan handed over is not the one shown with the reason typed: %+v", k, p.Request)
		}
	}
}
