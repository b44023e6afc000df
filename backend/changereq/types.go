// Package changereq is four-eyes change requests: one person stores the
// exact plan of a write in a ChangeRequest (deploy/change-requests), others
// review it, and the agent sends it as it is, once approved. The API server
// enforces who may write what of a request (ADR 0034).
package changereq

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// GVR is where ChangeRequests are.
var GVR = actions.ChangeRequests

// ChangeRequest is one request as read from the cluster.
type ChangeRequest struct {
	Namespace, Name, ResourceVersion string
	Created                          time.Time
	Spec                             Spec
	Reviews                          []Review
	Status                           Status
}

// Spec is what is asked, exactly; immutable once created.
type Spec struct {
	Unit              Unit           `json:"unit"`
	Action            actions.Kind   `json:"action"`
	Options           Options        `json:"options,omitempty"`
	Reason            string         `json:"reason"`
	Requester         string         `json:"requester"`
	ApprovalsRequired int            `json:"approvalsRequired"`
	ExpiresAt         time.Time      `json:"expiresAt"`
	Plan              actions.Stored `json:"plan"`
}

// Unit is the object the request writes, in the request's namespace; of a
// root module (in no cluster), Name is <workspace>/<name> and UID its
// state's lineage.
type Unit struct {
	Engine model.Engine `json:"engine"`
	Name   string       `json:"name"`
	UID    string       `json:"uid"`
}

// Decisions of a review.
const (
	Approve = "approve"
	Reject  = "reject"
	Cancel  = "cancel" // the requester's own
)

// Review is one person's decision on the request.
type Review struct {
	User     string    `json:"user"`
	Decision string    `json:"decision"`
	Reason   string    `json:"reason"`
	Digest   string    `json:"digest"`
	At       time.Time `json:"at,omitzero"`
}

// Phase is where a request stands.
type Phase string

const (
	Pending   Phase = "Pending"
	Approved  Phase = "Approved"
	Applying  Phase = "Applying"
	Applied   Phase = "Applied"
	Rejected  Phase = "Rejected"
	Cancelled Phase = "Cancelled"
	Stale     Phase = "Stale"
	Expired   Phase = "Expired"
	Failed    Phase = "Failed"
)

// Closed tells whether nothing more happens to a request in this phase.
func (p Phase) Closed() bool {
	switch p {
	case Applied, Rejected, Cancelled, Stale, Expired, Failed:
		return true
	}
	return false
}

// Status is what the agent wrote.
type Status struct {
	Phase Phase  `json:"phase,omitempty"`
	Why   string `json:"why,omitempty"`
	Agent string `json:"agent,omitempty"`
	// ClaimedAt is when the agent claimed the request, or last renewed its
	// claim while a root module's apply runs.
	ClaimedAt       *time.Time `json:"claimedAt,omitempty"`
	AppliedAt       *time.Time `json:"appliedAt,omitempty"`
	ResourceVersion string     `json:"resourceVersion,omitempty"`
}

// Key is the unit the request writes, in the named context; a root
// module's is in no context, wherever its request is kept.
func (c *ChangeRequest) Key(context string) model.Key {
	if u := c.Spec.Unit; u.Engine == model.EngineRoot {
		ws, name, _ := strings.Cut(u.Name, "/")
		return model.Key{Engine: model.EngineRoot, Namespace: ws, Name: name}
	}
	return model.Key{Context: context, Engine: c.Spec.Unit.Engine, Namespace: c.Namespace, Name: c.Spec.Unit.Name}
}

// RootUnit is the request's Unit of a root module's key.
func RootUnit(k model.Key, lineage string) Unit {
	return Unit{Engine: model.EngineRoot, Name: k.Namespace + "/" + k.Name, UID: lineage}
}

// Ref names the request as the commands take it: <namespace>/<name>.
func (c *ChangeRequest) Ref() string { return c.Namespace + "/" + c.Name }

// Approvers are the people who approved, in order.
func (c *ChangeRequest) Approvers() []Review {
	var out []Review
	for _, r := range c.Reviews {
		if r.Decision == Approve {
			out = append(out, r)
		}
	}
	return out
}

// decided is the first reject or cancel, if any.
func (c *ChangeRequest) decided() (Review, bool) {
	for _, r := range c.Reviews {
		if r.Decision == Reject || r.Decision == Cancel {
			return r, true
		}
	}
	return Review{}, false
}

// State is the request's phase and why: the agent's word once it closed
// the request, else what the reviews and the clock say (the agent has not
// acted yet, or runs nowhere).
func (c *ChangeRequest) State(now time.Time) (Phase, string) {
	if c.Status.Phase.Closed() || c.Status.Phase == Applying {
		return c.Status.Phase, c.Status.Why
	}
	if r, ok := c.decided(); ok {
		if r.Decision == Cancel {
			return Cancelled, "cancelled by " + r.User + ": " + r.Reason
		}
		return Rejected, "rejected by " + r.User + ": " + r.Reason
	}
	if !now.Before(c.Spec.ExpiresAt) {
		return Expired, "expired at " + c.Spec.ExpiresAt.UTC().Format(time.RFC3339) + " before it was applied"
	}
	if n := len(c.Approvers()); n >= c.Spec.ApprovalsRequired {
		return Approved, fmt.Sprintf("%d of %d approvals: the agent applies it", n, c.Spec.ApprovalsRequired)
	}
	return Pending, fmt.Sprintf("%d of %d approvals", len(c.Approvers()), c.Spec.ApprovalsRequired)
}

// AwaitsReviewBy tells whether user may still review the request: open,
// not theirs, not reviewed by them.
func (c *ChangeRequest) AwaitsReviewBy(user string, now time.Time) bool {
	if p, _ := c.State(now); p != Pending || user == c.Spec.Requester {
		return false
	}
	for _, r := range c.Reviews {
		if r.User == user {
			return false
		}
	}
	return true
}

// FromObject reads a request from its unstructured object.
func FromObject(obj map[string]any) (*ChangeRequest, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var o struct {
		Metadata struct {
			Namespace, Name, ResourceVersion string
			CreationTimestamp                time.Time
		} `json:"metadata"`
		Spec struct {
			Request Spec     `json:"request"`
			Reviews []Review `json:"reviews"`
		} `json:"spec"`
		Status Status `json:"status"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("change request %s/%s: %w", o.Metadata.Namespace, o.Metadata.Name, err)
	}
	return &ChangeRequest{Namespace: o.Metadata.Namespace, Name: o.Metadata.Name, ResourceVersion: o.Metadata.ResourceVersion,
		Created: o.Metadata.CreationTimestamp, Spec: o.Spec.Request, Reviews: o.Spec.Reviews, Status: o.Status}, nil
}

// toObject is a new request's object.
func toObject(namespace string, spec Spec) (map[string]any, error) {
	raw, err := json.Marshal(map[string]any{
		"apiVersion": GVR.GroupVersion().String(), "kind": "ChangeRequest",
		"metadata": map[string]any{"namespace": namespace, "generateName": generateName(spec)},
		"spec":     map[string]any{"request": spec},
	})
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	return obj, json.Unmarshal(raw, &obj)
}

// generateName starts a request's name with its action and unit.
func generateName(spec Spec) string {
	name := string(spec.Action) + "-" + strings.ReplaceAll(spec.Unit.Name, "/", "-")
	if len(name) > 50 {
		name = name[:50]
	}
	return name + "-"
}

// PastTense is what a decision did: approved, rejected, cancelled.
func PastTense(decision string) string {
	return map[string]string{Approve: "approved", Reject: "rejected", Cancel: "cancelled"}[decision]
}

// ReviewsText is "bob:approve carol:reject (1/2)", the approvals counted
// against those required.
func (c *ChangeRequest) ReviewsText() string {
	var parts []string
	for _, r := range c.Reviews {
		parts = append(parts, r.User+":"+r.Decision)
	}
	return strings.TrimSpace(strings.Join(parts, " ") + fmt.Sprintf(" (%d/%d)", len(c.Approvers()), c.Spec.ApprovalsRequired))
}
