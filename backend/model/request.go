package model

import "fmt"

// RequestMark is what a unit shows of an open change request for it.
type RequestMark struct {
	// Ref is the request's <namespace>/<name>.
	Ref       string
	Action    ActionKind
	Requester string
	// Phase is Pending, Approved or Applying.
	Phase               string
	Approvals, Required int
}

// String is one line: "team-a/pause-web-x7k2q: pause asked by alice, 0/1 approvals (Pending)".
func (r RequestMark) String() string {
	return fmt.Sprintf("%s: %s asked by %s, %d/%d approvals (%s)", r.Ref, r.Action, r.Requester, r.Approvals, r.Required, r.Phase)
}
