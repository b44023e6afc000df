// Package actions executes driftdeck's writes: every action is planned from a
// fresh read of the object, shown (the plan says exactly what will be written),
// permission-checked, written as one JSON patch whose test operations are its
// preconditions, verified by reading back, announced as a Kubernetes Event and
// appended to the local audit log. Read-only mode refuses here, in the backend.
package actions

import (
	"fmt"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Kind names an action as the command line does.
type Kind string

const (
	Pause         Kind = "pause"           // Argo CD: auto-sync off; Stack: preview only
	PauseSelfHeal Kind = "pause-self-heal" // Argo CD: self-heal off, auto-sync stays
	Resume        Kind = "resume"
	Sync          Kind = "sync"
	Approve       Kind = "approve"
	Terminate     Kind = "terminate"
	Refresh       Kind = "refresh"
	HardRefresh   Kind = "hard-refresh"
	Rollback      Kind = "rollback"
	ConfirmPrune  Kind = "confirm-prune"
	Retry         Kind = "retry"
)

// KindsFor lists the actions an engine knows, in menu order.
func KindsFor(e model.Engine) []Kind {
	switch e {
	case model.EngineArgoCD:
		return []Kind{Sync, Approve, Refresh, HardRefresh, Terminate, Pause, PauseSelfHeal, Resume, Rollback, ConfirmPrune}
	case model.EnginePulumi:
		return []Kind{Retry, Approve, Pause, Resume}
	}
	return nil
}

// ParseKind accepts the command line's action names.
func ParseKind(s string) (Kind, error) {
	for _, k := range []Kind{Pause, PauseSelfHeal, Resume, Sync, Approve, Terminate, Refresh, HardRefresh, Rollback, ConfirmPrune, Retry} {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown action %q", s)
}

// Destructive actions need a confirmation that defaults to No.
func (k Kind) Destructive() bool {
	switch k {
	case Refresh, HardRefresh:
		return false
	}
	return true
}

// Request is one action on one unit.
type Request struct {
	Kind   Kind
	Key    model.Key
	Reason string
	// Until is when a pause expires (zero: no expiry). Expired pauses are
	// shown as such; nothing resumes on its own.
	Until time.Time
	// Prune lets a sync or rollback delete resources no longer in the source.
	Prune bool
	// Resources limits a sync to these resources (group/kind/namespace/name).
	Resources []Resource
	// Revision binds a sync or approval to the revision the user reviewed:
	// the write is refused when the app now compares against another one.
	Revision string
	// HistoryID picks the Argo CD history entry to roll back to.
	HistoryID int64
}

// Resource names one managed resource of an Argo CD Application.
type Resource struct {
	Group, Kind, Namespace, Name string
}

// Refusal is an action the backend will not do, with the reason.
type Refusal struct {
	Reason string
	// NothingToDo marks a refusal because the unit already is as asked
	// (already paused, nothing to pause): bulk actions skip such units.
	NothingToDo bool
	// Permission marks a refusal for lack of permission (RBAC).
	Permission bool
}

func (r *Refusal) Error() string { return r.Reason }

func refusef(format string, args ...any) error { return &Refusal{Reason: fmt.Sprintf(format, args...)} }

func nothingToDo(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...), NothingToDo: true}
}
