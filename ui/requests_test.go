package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

// requestFor is an open request of prod-eu-1 by requester.
func requestFor(name, requester string) changereq.Listed {
	return changereq.Listed{Context: "prod-eu-1", ChangeRequest: &changereq.ChangeRequest{
		Namespace: "payments", Name: name, Created: fixedNow.Add(-time.Hour),
		Spec: changereq.Spec{Unit: changereq.Unit{Engine: model.EngineArgoCD, Name: "checkout"}, Action: actions.Pause,
			Reason: "INC-7: hold \x1b[31mthe rollout", Requester: requester, ApprovalsRequired: 1, ExpiresAt: fixedNow.Add(time.Hour),
			Plan: actions.Stored{ResourceVersion: "42", Summary: "pause auto-sync and self-heal of argocd/payments/checkout",
				Patch:  `[{"op":"test","path":"/metadata/resourceVersion","value":"42"},{"op":"remove","path":"/spec/syncPolicy/automated"}]`,
				Digest: "sha256:abc", Changes: []string{`spec.syncPolicy.automated: {"selfHeal":true} → (removed)`}}},
	}}
}

// :requests lists the change requests; A on another's opens its stored
// write whole and, with a reason, approves it; the header counts those
// awaiting the user; a reject of one's own cancels it.
func TestRequestsScreenReviewsTheStoredWrite(t *testing.T) {
	a, be := newTestApp(t, 160, 40)
	be.reqs.requests = []changereq.Listed{requestFor("pause-checkout-abc12", "alice"), requestFor("pause-checkout-mine1", "oncall@example.com")}
	a.Update(BatchMsg(store.Batch{Units: fixtureUnits(), Status: []store.ContextStatus{{
		Context: "prod-eu-1", Identity: "oncall@example.com", Connected: true, Synced: true, LastEvent: fixedNow}}}))
	if !strings.Contains(plain(a), "1 await your review (:requests)") {
		t.Errorf("the header does not count the request awaiting the user:\n%s", plain(a))
	}
	a.Update(keyMsg(":"))
	typeText(a, "requests")
	press(a, "enter")
	if !topIs[*requestsScreen](a) || !strings.Contains(plain(a), "payments/pause-checkout-abc12") || !strings.Contains(plain(a), `INC-7: hold \x1b[31mthe rollout`) {
		t.Fatalf(":requests does not list the requests, escapes made visible:\n%s", plain(a))
	}
	press(a, "A")
	text := flat(a)
	for _, want := range []string{"Approve change request payments/pause-checkout-abc12", `{"op":"remove","path":"/spec/syncPoli`, "digest sha256:abc"} {
		if !strings.Contains(text, want) {
			t.Errorf("the review does not show %q:\n%s", want, plain(a))
		}
	}
	typeText(a, "matches the incident plan")
	press(a, "enter", "y")
	if len(be.reqs.reviewed) != 1 || be.reqs.reviewed[0] != "payments/pause-checkout-abc12 approve matches the incident plan" {
		t.Fatalf("reviews written: %q", be.reqs.reviewed)
	}
	if !topIs[*requestsScreen](a) || !strings.Contains(plain(a), "approved: payments/pause-checkout-abc12") {
		t.Errorf("after the approval:\n%s", plain(a))
	}
	press(a, "j", "D")
	if !strings.Contains(flat(a), "Cancel your change request payments/pause-checkout-mine1") {
		t.Fatalf("D on one's own request must offer to cancel it:\n%s", plain(a))
	}
	typeText(a, "not needed")
	press(a, "enter", "y")
	if len(be.reqs.reviewed) != 2 || be.reqs.reviewed[1] != "payments/pause-checkout-mine1 cancel not needed" {
		t.Errorf("reviews written: %q", be.reqs.reviewed)
	}
}

// A unit with an open request says so under the list and in its detail.
func TestAUnitShowsItsOpenRequest(t *testing.T) {
	a, _ := newTestApp(t, 160, 40)
	units := fixtureUnits()
	for _, u := range units {
		if u.Key.Name == "checkout" {
			u.Request = &model.RequestMark{Ref: "payments/pause-checkout-abc12", Action: actions.Pause, Requester: "alice", Phase: "Pending", Required: 1}
		}
	}
	a.Update(BatchMsg(store.Batch{Units: units}))
	selectUnit(t, a, "checkout")
	if !strings.Contains(flat(a), "change request payments/pause-checkout-abc12: pause asked by alice, 0/1 approvals (Pending)") {
		t.Errorf("the list does not show the unit's open request:\n%s", plain(a))
	}
	press(a, "enter")
	if !strings.Contains(flat(a), "Change request open") || !strings.Contains(flat(a), "pause by alice") {
		t.Errorf("the detail does not show the unit's open request:\n%s", plain(a))
	}
}

// Where the user may not write a unit but may ask for the write, the
// action key offers the request: the plan is shown as for the action, and
// yes stores it in a change request instead of writing it.
func TestAnActionTheUserMayOnlyAskForOpensARequest(t *testing.T) {
	a, be := newTestApp(t, 160, 40)
	be.whyNot = map[actions.Kind]string{actions.Pause: `User "dev" cannot patch resource "applications"`}
	be.askable = true
	selectUnit(t, a, "checkout")
	press(a, "p")
	text := flat(a)
	if !strings.Contains(text, "Ask for: ") || !strings.Contains(text, "You may not write this yourself") {
		t.Fatalf("p where the user may only ask does not offer the request:\n%s", plain(a))
	}
	typeText(a, "INC-7")
	press(a, "enter", "enter", "y") // the reason, the expiry, yes
	if len(be.reqs.asked) != 1 || len(be.sent) != 0 || be.reqs.asked[0].Request.Kind != actions.Pause {
		t.Fatalf("asked %d, sent %d; want the plan asked for, nothing written", len(be.reqs.asked), len(be.sent))
	}
	if !strings.Contains(flat(a), "asked: change request argocd/pause-checkout-x1 needs 1 approval(s)") {
		t.Errorf("after the request:\n%s", plain(a))
	}
	if !strings.Contains(plain(a), "p ask: pause") {
		t.Errorf("the footer does not offer the key as a request:\n%s", plain(a))
	}
}
