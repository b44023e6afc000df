package rootmod

import (
	"context"
	"os"
	"strconv"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Read reads r's state, lock and last plan into its unit. A state that
// cannot be read still makes a unit, failed, saying why.
func (t *Tofu) Read(ctx context.Context, r Root) *model.Unit {
	f := &model.RootFacts{Dir: r.Dir}
	st, err := t.ReadState(ctx, r)
	if err != nil {
		f.ReadError = err.Error()
	} else {
		f.Serial, f.Lineage, f.TofuVersion, f.Resources, f.Outputs = st.Serial, st.Lineage, st.TofuVersion, st.Resources, st.Outputs
	}
	lock, backend, err := t.ReadLock(ctx, r)
	f.Backend, f.Lock = backend, lock
	if err != nil {
		f.LockUnread = err.Error()
	}
	if f.ReadError == "" {
		f.AppliedAt = t.stateWritten(ctx, r)
	}
	if f.Plan, err = t.LatestPlan(r); err != nil && f.ReadError == "" {
		f.ReadError = err.Error()
	}
	return Unit(r, f)
}

// stateWritten is when the backend last wrote r's state, zero when it
// does not say.
func (t *Tofu) stateWritten(ctx context.Context, r Root) time.Time {
	be, err := t.readBackend(r)
	if err != nil {
		return time.Time{}
	}
	switch be.Type {
	case "local":
		if fi, err := os.Stat(localStatePath(r, be)); err == nil {
			return fi.ModTime()
		}
	case "kubernetes":
		if at, err := kubeStateWritten(ctx, r, be); err == nil {
			return at
		}
	case "s3":
		if at, err := s3StateWritten(ctx, r, be); err == nil {
			return at
		}
	}
	return time.Time{}
}

// Unit is the unit of a root module's facts: drifted when its plan for
// the current state changes something, awaiting approval while that plan
// is saved and not applied, running while somebody holds the lock.
func Unit(r Root, f *model.RootFacts) *model.Unit {
	u := &model.Unit{Key: r.Key(), Kind: "RootModule", Root: f, Automation: model.Manual, AutomationNative: "plan, then apply"}
	u.Applied = serialText(f.Serial)
	u.LastChange = f.AppliedAt
	u.Health = model.Healthy
	u.HealthNative = "state read"
	plan := f.Plan
	current := plan != nil && plan.Serial == f.Serial && plan.Lineage == f.Lineage
	switch {
	case current && plan.Changes:
		u.Sync, u.SyncNative = model.Drifted, plan.Summary
		u.Desired = "plan " + plan.ID
	case current:
		u.Sync, u.SyncNative = model.InSync, plan.Summary
	default:
		u.SyncNative = "not planned against this state"
	}
	switch {
	case f.ReadError != "":
		u.Health, u.HealthNative = model.HealthUnknown, "state not read"
		u.Observed, u.RunReason = model.Failed, f.ReadError
	case f.Lock != nil:
		u.Observed, u.RunSince = model.Running, f.Lock.Created
		u.RunReason = "state locked by " + lockHolder(f.Lock)
		u.Persisting = "holding the state lock"
	case current && plan.Changes && !plan.Applied:
		u.Observed, u.RunSince = model.AwaitingApproval, plan.At
		u.RunReason = "plan " + plan.ID + " waits to be applied: " + plan.Summary
	}
	return u
}

func lockHolder(l *model.RootLock) string {
	who := l.Who
	if who == "" {
		who = "an unknown holder"
	}
	if l.Operation != "" {
		who += " (" + l.Operation + ")"
	}
	return who
}

func serialText(serial int64) string {
	if serial == 0 {
		return "none"
	}
	return "#" + strconv.FormatInt(serial, 10)
}
