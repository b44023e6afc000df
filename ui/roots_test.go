package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

const rootPlanID = "cdf60e936b54fcffcd85"

// rootUnit is a root module whose saved plan waits to be applied, its
// state locked by lock when set.
func rootUnit(name, backend string, lock *model.RootLock, changes bool) *model.Unit {
	f := &model.RootFacts{Dir: "/src/infra/" + name, Backend: backend, Serial: 7, Lineage: "l-1", Lock: lock,
		Resources: []string{"terraform_data.db"},
		Plan:      &model.RootPlan{ID: rootPlanID, At: fixedNow.Add(-time.Minute), By: "alice@ws", Serial: 7, Lineage: "l-1", Changes: changes, Summary: "Plan: 0 to add, 1 to change, 0 to destroy."}}
	return &model.Unit{Key: model.Key{Engine: model.EngineRoot, Namespace: "default", Name: name}, Kind: "RootModule", Root: f, Sync: model.Drifted, Observed: model.AwaitingApproval}
}

// newRootTestApp shows units; the plan the diff screen shows changes
// something when changes says so.
func newRootTestApp(t *testing.T, readOnly, changes bool, units ...*model.Unit) (*App, *fakeBackend) {
	t.Helper()
	be := &fakeBackend{}
	var pairs []diff.Pair
	if changes {
		pairs = []diff.Pair{{Live: map[string]any{"ttl": 30}, Desired: map[string]any{"ttl": 300}}}
	}
	report, err := diff.Objects(pairs, diff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	be.diff = &argodiff.Result{Report: report, Revision: rootPlanID, SyncRevision: rootPlanID, Source: "tofu plan against state serial 7"}
	a := New(Options{Backend: be, Theme: "dark", Initial: store.Batch{Units: units}, Now: func() time.Time { return fixedNow }, ReadOnly: readOnly})
	a.Update(tea.WindowSizeMsg{Width: 140, Height: 40})
	return a, be
}

// P plans a root module and shows the plan saved; A there applies exactly
// that plan, by its id, with the reason typed.
func TestRootModulePlanThenApplyExactlyThePlanShown(t *testing.T) {
	a, be := newRootTestApp(t, false, true, rootUnit("network", "s3", nil, true))
	selectUnit(t, a, "network")
	press(a, "P")
	if be.rootPlans != 1 || !topIs[*diffScreen](a) {
		t.Fatalf("P must plan the root module and open its plan (%d plans):\n%s", be.rootPlans, plain(a))
	}
	press(a, "A")
	if d, ok := a.top().(*dialog); !ok || d.custom == nil || !strings.Contains(flat(a), "Apply plan "+rootPlanID+" of root/default/network") {
		t.Fatalf("A on the plan must ask to apply exactly it:\n%s", plain(a))
	}
	typeText(a, "INC-9")
	press(a, "enter", "y")
	if want := "apply root/default/network " + rootPlanID + " INC-9"; len(be.rootWrites) != 1 || be.rootWrites[0] != want {
		t.Fatalf("applied %q, want %q", be.rootWrites, want)
	}
	if !strings.Contains(flat(a), "apply of plan "+rootPlanID+" done") {
		t.Errorf("the apply must be reported:\n%s", plain(a))
	}
	press(a, "P")
	if be.rootPlans != 2 || !topIs[*diffScreen](a) || len(a.stack) != 2 {
		t.Errorf("P on the plan's screen plans again there (%d plans, %d screens):\n%s", be.rootPlans, len(a.stack), plain(a))
	}
}

// A plan that changes nothing is not applied; a pause is not a root
// module's; a read-only workbench still plans and refuses the apply.
func TestRootModuleKeysSayWhatIsNotPossible(t *testing.T) {
	a, be := newRootTestApp(t, false, false, rootUnit("network", "s3", nil, false))
	selectUnit(t, a, "network")
	press(a, "d", "A")
	if _, isDialog := a.top().(*dialog); isDialog || !strings.Contains(flat(a), "changes nothing") {
		t.Errorf("A on a plan that changes nothing must say so, not ask:\n%s", plain(a))
	}
	press(a, "esc", "p")
	if _, isDialog := a.top().(*dialog); isDialog || !strings.Contains(flat(a), "driftdeck does not pause a root module") {
		t.Errorf("p on a root module must say it is not paused:\n%s", plain(a))
	}

	a, be = newRootTestApp(t, true, true, rootUnit("network", "s3", nil, true))
	selectUnit(t, a, "network")
	press(a, "P")
	if be.rootPlans != 1 {
		t.Fatalf("a read-only workbench must still plan (it writes no state):\n%s", plain(a))
	}
	press(a, "A")
	if _, isDialog := a.top().(*dialog); isDialog || len(be.rootWrites) != 0 || !strings.Contains(flat(a), "read-only mode") {
		t.Errorf("a read-only workbench must refuse the apply at once:\n%s", plain(a))
	}
}

// K breaks exactly the lock shown, on a backend that keeps it beyond its
// holder; a local lock is its live process's, and is not broken.
func TestRootModuleForceUnlockBreaksExactlyTheLockShown(t *testing.T) {
	lock := &model.RootLock{ID: "f2ab685b-f84d-ac0b-a125-378a22877e8d", Operation: "OperationTypeApply", Who: "ci@runner-7\x1b]0;pwned\a", Created: fixedNow.Add(-2 * time.Hour)}
	a, be := newRootTestApp(t, false, true, rootUnit("network", "kubernetes", lock, true), rootUnit("dns", "local", lock, true))
	selectUnit(t, a, "network")
	press(a, "K")
	screen := flat(a)
	for _, want := range []string{"Break the state lock of root/default/network", lock.ID, "ci@runner-7", "OperationTypeApply", "(120m ago)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the unlock dialog lacks %q:\n%s", want, plain(a))
		}
	}
	if strings.Contains(a.View().Content, "\x1b]0;pwned") || !strings.Contains(screen, `ci@runner-7\x1b]0;pwned\x07`) {
		t.Errorf("the holder's escape sequence must show, not act:\n%q", screen)
	}
	typeText(a, "INC-9 runner gone")
	press(a, "enter", "y")
	if want := "unlock root/default/network " + lock.ID + " INC-9 runner gone"; len(be.rootWrites) != 1 || be.rootWrites[0] != want {
		t.Fatalf("unlocked %q, want %q", be.rootWrites, want)
	}
	selectUnit(t, a, "dns")
	press(a, "K")
	if _, isDialog := a.top().(*dialog); isDialog || !strings.Contains(flat(a), "still runs on this machine") {
		t.Errorf("a local lock must not be broken:\n%s", plain(a))
	}
}
