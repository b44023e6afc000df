package rootmod

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Read reads r's state, lock and last plan into its unit. A state that
// cannot be read still makes a unit, failed, saying why. The state is
// pulled again only when the backend's stamp of it moved (ADR 0043): a
// pull runs tofu, which costs a tenth of a second of CPU, every 30 s for
// each module otherwise.
func (t *Tofu) Read(ctx context.Context, r Root) *model.Unit {
	f := &model.RootFacts{Dir: r.Dir, Given: r.Given}
	var st *State
	// The backend is known once init ran: the stamp is read before the
	// pull, so that a write in between is pulled next time.
	err := t.prepare(ctx, r)
	stamp, written := t.stateStamp(ctx, r)
	if st = t.pulled(r, stamp); st == nil && err == nil {
		if st, err = t.ReadState(ctx, r); err == nil {
			t.remember(r, stamp, st)
		}
	}
	if err != nil {
		f.ReadError = err.Error()
	} else {
		f.Serial, f.Lineage, f.TofuVersion, f.Resources, f.Outputs = st.Serial, st.Lineage, st.TofuVersion, st.Resources, st.Outputs
		f.AppliedAt = written
	}
	lock, backend, err := t.ReadLock(ctx, r)
	f.Backend, f.Lock = backend, lock
	if err != nil {
		f.LockUnread = err.Error()
	}
	if f.Plan, err = t.LatestPlan(r); err != nil && f.ReadError == "" {
		f.ReadError = err.Error()
	}
	return Unit(r, f)
}

// stateStamp says which state the backend holds now, without reading it
// (the state file's size and time, the Secret's resourceVersion, the
// object's time), and when it was written; "" when the backend does not
// say.
func (t *Tofu) stateStamp(ctx context.Context, r Root) (string, time.Time) {
	be, err := t.readBackend(r)
	if err != nil {
		return "", time.Time{}
	}
	switch be.Type {
	case "local":
		if fi, err := os.Stat(localStatePath(r, be)); err == nil {
			return fmt.Sprint(fi.Size(), " ", fi.ModTime().UnixNano()), fi.ModTime()
		}
	case "kubernetes":
		if version, at, err := kubeStateWritten(ctx, r, be); err == nil {
			return version, at
		}
	case "s3":
		if at, err := s3StateWritten(ctx, r, be); err == nil {
			return fmt.Sprint(at.UnixNano()), at
		}
	}
	return "", time.Time{}
}

// pulled is the state last pulled of r while the backend's stamp was
// stamp; nil when none is kept for it.
func (t *Tofu) pulled(r Root, stamp string) *State {
	if stamp == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if p, ok := t.states[r.id()]; ok && p.stamp == stamp {
		return p.state
	}
	return nil
}

// remember keeps a pulled state under the stamp read before the pull.
func (t *Tofu) remember(r Root, stamp string, st *State) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if stamp == "" {
		delete(t.states, r.id())
		return
	}
	t.states[r.id()] = stampedState{stamp: stamp, state: st}
}

// stampedState is a pulled state and the backend's stamp of it.
type stampedState struct {
	stamp string
	state *State
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
