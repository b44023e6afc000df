// Package writeguard is the one gate every driftdeck write passes, whatever
// it writes (a Kubernetes patch, a state-backend file, a plan-bound pulumi
// up): read-only mode, the reason, the actor, the permission, the audit line
// and the Kubernetes Event are decided here once, so that a refusal looks
// the same to the caller whichever engine it came from.
package writeguard

import (
	"errors"
	"fmt"
)

// ErrReadOnly is returned for every write in read-only mode.
var ErrReadOnly = errors.New("driftdeck runs read-only (--read-only): writes are refused")

// Refusal is a write driftdeck will not do, with the reason.
type Refusal struct {
	Reason string
	// NothingToDo marks a refusal because the unit already is as asked
	// (already paused, nothing to pause): bulk actions skip such units.
	NothingToDo bool
	// Satisfied marks a NothingToDo where what was asked is already the
	// case (a refresh already requested): the caller reports it done, not
	// refused.
	Satisfied bool
	// Permission marks a refusal for lack of permission (RBAC).
	Permission bool
	// NotFound marks a refusal because the object does not exist.
	NotFound bool
}

func (r *Refusal) Error() string { return r.Reason }

// Refusef is a plain refusal: not possible in the unit's state.
func Refusef(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// IsRefusal tells a refusal (nothing was attempted) from a failure.
func IsRefusal(err error) bool {
	var r *Refusal
	return errors.As(err, &r) || errors.Is(err, ErrReadOnly)
}

// Unknown is a write whose answer never came (the connection dropped while
// it was in flight) and whose effect could not be read back either: it may
// or may not have been applied. Its audit outcome is "unknown", never done
// or failed.
type Unknown struct{ Err error }

func (u *Unknown) Error() string { return u.Err.Error() }
func (u *Unknown) Unwrap() error { return u.Err }

// IsUnknown tells a write of unknown effect.
func IsUnknown(err error) bool {
	var u *Unknown
	return errors.As(err, &u)
}
