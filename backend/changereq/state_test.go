package changereq

import (
	"testing"
	"time"
)

// What a request's state reads before the agent acted, and once it did.
func TestStateFollowsTheReviewsTheClockAndTheAgent(t *testing.T) {
	now := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	req := func(reviews ...Review) *ChangeRequest {
		return &ChangeRequest{Namespace: "team-a", Name: "pause-web-1",
			Spec:    Spec{Requester: "alice", ApprovalsRequired: 2, ExpiresAt: now.Add(time.Hour)},
			Reviews: reviews}
	}
	approve := func(who string) Review { return Review{User: who, Decision: Approve, Reason: "ok"} }
	for _, c := range []struct {
		name string
		cr   *ChangeRequest
		at   time.Time
		want Phase
	}{
		{"no reviews", req(), now, Pending},
		{"one of two", req(approve("bob")), now, Pending},
		{"two of two", req(approve("bob"), approve("carol")), now, Approved},
		{"a reject wins over approvals", req(approve("bob"), Review{User: "carol", Decision: Reject, Reason: "no"}), now, Rejected},
		{"cancelled by the requester", req(approve("bob"), Review{User: "alice", Decision: Cancel, Reason: "moot"}), now, Cancelled},
		{"past its expiry", req(approve("bob"), approve("carol")), now.Add(2 * time.Hour), Expired},
	} {
		if got, why := c.cr.State(c.at); got != c.want || why == "" {
			t.Errorf("%s: %s (%q); want %s", c.name, got, why, c.want)
		}
	}
	applied := req(approve("bob"), approve("carol"))
	applied.Status = Status{Phase: Applied, Why: "applied as approved"}
	if got, _ := applied.State(now.Add(2 * time.Hour)); got != Applied {
		t.Errorf("an applied request past its expiry reads %s; the agent's word stands", got)
	}
	if !req(approve("bob")).AwaitsReviewBy("carol", now) || req(approve("bob")).AwaitsReviewBy("bob", now) || req().AwaitsReviewBy("alice", now) {
		t.Error("a request awaits the review of those who may still give one: not its requester, not a past reviewer")
	}
}
