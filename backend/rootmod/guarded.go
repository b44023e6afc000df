package rootmod

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"time"

	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// Ops are the writes to root modules, each through the guard: refused in
// read-only mode, a reason required, audited. A root module has no
// Kubernetes object, so no Event: the audit log is their record.
type Ops struct {
	Tofu     *Tofu
	Audit    *audit.Log
	ReadOnly bool
	// DryRun: nothing runs; the audit line says what would have.
	DryRun bool
	// LockWait is how long a write waits for the state lock (0: not at
	// all, the holder is named at once).
	LockWait time.Duration
}

func (o *Ops) guard() *writeguard.Guard {
	return &writeguard.Guard{Audit: o.Audit, ReadOnly: o.ReadOnly, DryRun: o.DryRun}
}

const noEvent = "a root module has no Kubernetes object to record an Event on"

// authority: the state backend decides, under the user's own credentials,
// when tofu runs; driftdeck names who ran it.
type authority struct{ bin string }

func (a authority) Identity(context.Context) (string, error) { return LocalIdentity(), nil }
func (a authority) WhyNot(context.Context, writeguard.Attempt) (string, error) {
	return "", nil
}
func (a authority) Route() (string, string) { return "tofu", a.bin }

// LocalIdentity is the user running driftdeck, as tofu names a lock's
// holder: user@host.
func LocalIdentity() string {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return name + "@" + host
}

// Apply applies exactly the saved plan id of r.
func (o *Ops) Apply(ctx context.Context, r Root, id, reason string) (*writeguard.Write, []byte, error) {
	return o.ApplyApproved(ctx, r, id, reason, "")
}

// ApplyApproved applies exactly the saved plan id of r for the change
// request approval names (its requester and approvers, for the audit).
func (o *Ops) ApplyApproved(ctx context.Context, r Root, id, reason, approval string) (*writeguard.Write, []byte, error) {
	var out []byte
	a := o.attempt(r, "apply-plan", reason)
	a.Approval = approval
	w, err := o.guard().Do(ctx, a, func(w *writeguard.Write) error {
		w.Entry.Patch, w.Entry.NoEvent = json.RawMessage(fmt.Sprintf(`{"applyPlan":%q}`, id)), noEvent
		if w.DryRun {
			return nil
		}
		var err error
		out, err = o.Tofu.Apply(ctx, r, id, o.LockWait)
		return err
	})
	return w, out, err
}

// ForceUnlock breaks the lock id of r's state, the id its reader was shown.
func (o *Ops) ForceUnlock(ctx context.Context, r Root, id, reason string) (*writeguard.Write, error) {
	return o.guard().Do(ctx, o.attempt(r, "force-unlock", reason), func(w *writeguard.Write) error {
		w.Entry.Patch, w.Entry.NoEvent = json.RawMessage(fmt.Sprintf(`{"forceUnlock":%q}`, id)), noEvent
		if w.DryRun {
			return nil
		}
		return o.Tofu.ForceUnlock(ctx, r, id)
	})
}

func (o *Ops) attempt(r Root, action, reason string) writeguard.Attempt {
	return writeguard.Attempt{Key: r.Key(), Action: action, Reason: reason, ReasonRequired: true, Authority: authority{o.Tofu.Bin}}
}
