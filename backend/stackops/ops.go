package stackops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// Ops runs Pulumi work for the units of a fleet.
type Ops struct {
	Cluster  func(context string) (*kube.Cluster, bool)
	Programs []config.StackProgram
	Audit    *audit.Log
	ReadOnly bool
	// DryRun: unlock, clear-pending and apply-plan write nothing and say
	// exactly what they would write.
	DryRun bool
	// CLI is the pulumi binary; "" finds one (pulumirun.FindCLI).
	CLI string
	// DriftChecked receives every finished drift check, to mark the unit
	// in the live model (fleet.RecordDrift); nil keeps none.
	DriftChecked func(k model.Key, res pulumirun.Result, at time.Time)
	Now          func() time.Time
}

func (o *Ops) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// State reads the stack's state: last update, resources, pending operations
// and the lock holder.
func (o *Ops) State(ctx context.Context, k model.Key) (*pulumistate.StackInfo, *Location, error) {
	loc, err := o.Locate(ctx, k)
	if err != nil {
		return nil, nil, err
	}
	be, err := pulumistate.Open(ctx, loc.Backend)
	if err != nil {
		return nil, loc, fmt.Errorf("opening the state backend %s: %w", loc.Backend, err)
	}
	defer be.Close()
	info, err := be.Stack(ctx, loc.Ref)
	if err != nil {
		return nil, loc, fmt.Errorf("reading stack %s: %w", loc.Ref, err)
	}
	return &info, loc, nil
}

// Unstick is a planned release of a stack's lock and/or removal of its
// pending operations, described exactly.
type Unstick struct {
	Loc     *Location
	Info    *pulumistate.StackInfo
	Repairs []*pulumistate.Repair
	// ClearPending: after the lock is gone, forget Info.Pending. It is
	// planned then, because the backend refuses to touch a locked stack.
	ClearPending bool
	backend      pulumistate.Backend // the repairs work through it: open until Close
}

// Close releases the connection to the state backend. Apply closes it too.
func (u *Unstick) Close() {
	if u.backend != nil {
		u.backend.Close()
		u.backend = nil
	}
}

// Changes lists every change the unstick makes.
func (u *Unstick) Changes() []string {
	var out []string
	for _, r := range u.Repairs {
		out = append(out, repairLines(r)...)
	}
	if u.ClearPending {
		out = append(out, fmt.Sprintf("forget %d pending operation(s) of %s, keeping a backup of the state:", len(u.Info.Pending), u.Info.Ref))
		for _, p := range u.Info.Pending {
			out = append(out, "  "+p.Type+" "+p.URN)
		}
	}
	return out
}

// repairLines is a repair in words: its summary, then each change.
func repairLines(r *pulumistate.Repair) []string {
	out := []string{r.Summary}
	for _, c := range r.Changes {
		out = append(out, "  "+c)
	}
	return out
}

// PlanUnstick plans removing torn sidecar files, breaking the lock
// (refused while its holder still runs on this host, unless force) and,
// with clearPending, forgetting pending operations.
func (o *Ops) PlanUnstick(ctx context.Context, k model.Key, clearPending, force bool) (*Unstick, error) {
	info, loc, err := o.State(ctx, k)
	if err != nil {
		return nil, err
	}
	be, err := pulumistate.Open(ctx, loc.Backend)
	if err != nil {
		return nil, err
	}
	u := &Unstick{Loc: loc, Info: info, backend: be}
	ok := false
	defer func() {
		if !ok {
			u.Close()
		}
	}()
	if len(info.Torn) > 0 {
		// First, so that everything after reads the stack as the CLI will.
		r, err := be.RemoveTorn(ctx, loc.Ref)
		if err != nil && !errors.Is(err, pulumistate.ErrNothingToDo) {
			return nil, err
		}
		if r != nil {
			u.Repairs = append(u.Repairs, r)
		}
	}
	if len(info.Locks) > 0 {
		r, err := be.BreakLock(ctx, loc.Ref, force)
		if err != nil && !errors.Is(err, pulumistate.ErrNothingToDo) {
			return nil, err
		}
		if r != nil {
			u.Repairs = append(u.Repairs, r)
		}
	}
	u.ClearPending = clearPending && len(info.Pending) > 0
	if u.ClearPending && len(info.Locks) == 0 {
		// Nothing to unlock first: plan it now, so the plan is exact.
		r, err := be.ClearPending(ctx, loc.Ref)
		if err != nil {
			return nil, err
		}
		u.Repairs, u.ClearPending = append(u.Repairs, r), false
	}
	if len(u.Repairs) == 0 && !u.ClearPending {
		return nil, &writeguard.Refusal{NothingToDo: true,
			Reason: fmt.Sprintf("%s: nothing to unstick (no lock held%s)", k.Ref(), map[bool]string{true: ", no pending operations", false: ""}[clearPending])}
	}
	ok = true
	return u, nil
}

// Done is what a state-backend write or a plan-bound up did, or in dry-run
// would have done: nothing is written in dry-run.
type Done struct {
	DryRun bool
	// Did lists each write made (in dry-run: that would be made).
	Did []string
}

// Apply carries out a planned unstick through the write guard: the repairs
// in order, an Event on the Stack and an audit line. In dry-run it writes
// nothing and returns what it would do.
func (o *Ops) Apply(ctx context.Context, u *Unstick, reason string) (*Done, error) {
	defer u.Close()
	k := u.Loc.Key
	done := &Done{DryRun: o.DryRun}
	_, err := o.guard().Do(ctx, o.attempt(k, "unlock", reason), func(w *writeguard.Write) error {
		w.Entry.Patch, _ = json.Marshal(u.Changes())
		w.Event = stackEvent("DriftdeckUnlock", "unstuck the state of")
		if w.DryRun {
			done.Did = u.Changes()
			return nil
		}
		for _, r := range u.Repairs {
			if err := r.Apply(ctx); err != nil {
				return fmt.Errorf("%s: %w", r.Summary, err)
			}
			done.Did = append(done.Did, repairLines(r)...)
		}
		if u.ClearPending {
			r, err := u.backend.ClearPending(ctx, u.Loc.Ref)
			if err == nil {
				err = r.Apply(ctx)
			}
			if err != nil {
				return fmt.Errorf("the lock is broken, but clearing the pending operations failed: %w", err)
			}
			done.Did = append(done.Did, repairLines(r)...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return done, nil
}

func (o *Ops) guard() *writeguard.Guard {
	return &writeguard.Guard{Cluster: o.Cluster, Audit: o.Audit, ReadOnly: o.ReadOnly, DryRun: o.DryRun, Now: o.Now}
}

// attempt is a write to a Stack's state or program: it needs a reason and
// permission to patch the Stack.
func (o *Ops) attempt(k model.Key, action, reason string) writeguard.Attempt {
	return writeguard.Attempt{Key: k, Action: action, Reason: reason, ReasonRequired: true, Resource: pulumiop.Stacks}
}

func stackEvent(reason, verb string) *writeguard.Event {
	return &writeguard.Event{Reason: reason, Verb: verb, Object: corev1.ObjectReference{APIVersion: "pulumi.com/v1", Kind: "Stack"}}
}

// Preview runs a preview of the stack's program, streaming every event, and
// saves the plan so that an approval applies exactly what was shown.
func (o *Ops) Preview(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*Reviewed, error) {
	loc, t, cleanup, err := o.locatedTarget(ctx, k)
	if err != nil {
		return nil, err
	}
	planDir, err := os.MkdirTemp("", "driftdeck-plan-")
	if err != nil {
		cleanup()
		return nil, err
	}
	rv := &Reviewed{Loc: loc, target: t, cleanup: func() { cleanup(); os.RemoveAll(planDir) }, PlanPath: filepath.Join(planDir, "plan.json")}
	res, err := pulumirun.Preview(ctx, t, pulumirun.PreviewOptions{PlanPath: rv.PlanPath, OnEvent: onEvent})
	rv.Result = res
	if err != nil {
		rv.Close()
		return nil, err
	}
	return rv, nil
}

// Reviewed is a finished preview with its saved plan.
type Reviewed struct {
	Loc      *Location
	Result   pulumirun.Result
	PlanPath string
	target   pulumirun.Target
	cleanup  func()
}

// Close removes the checkout and the plan.
func (r *Reviewed) Close() {
	if r.cleanup != nil {
		r.cleanup()
		r.cleanup = nil
	}
}

// Approve applies the reviewed plan: `up` bound to the plan, so nothing else
// can be applied; a program or state changed since the preview makes it fail
// before anything else happens. Only Stacks mapped to a local program are
// applied this way: the operator applies the others, approved by moving
// spec.commit (actions.Approve). In dry-run nothing runs and Done says what
// the up would apply.
func (o *Ops) Approve(ctx context.Context, r *Reviewed, reason string, onEvent func(pulumirun.Event)) (pulumirun.Result, *Done, error) {
	k := r.Loc.Key
	var res pulumirun.Result
	done := &Done{DryRun: o.DryRun}
	_, err := o.guard().Do(ctx, o.attempt(k, "apply-plan", reason), func(w *writeguard.Write) error {
		if r.Loc.Local == nil {
			return writeguard.Refusef("%s is run by the Pulumi operator: approve its pending commit (driftdeck approve) instead of applying from this machine", k.Ref())
		}
		done.Did = planWrites(r)
		w.Entry.Patch, _ = json.Marshal(done.Did)
		w.Event = stackEvent("DriftdeckApplyPlan", "applied the reviewed plan to")
		if w.DryRun {
			return nil
		}
		var err error
		res, err = pulumirun.ApplyPlan(ctx, r.target, r.PlanPath, onEvent)
		return err
	})
	if err != nil {
		return res, nil, err
	}
	return res, done, nil
}

// planWrites says what applying the reviewed plan writes: one line for the
// run, one per step that changes something.
func planWrites(r *Reviewed) []string {
	out := []string{fmt.Sprintf("pulumi up of stack %s in %s, bound to the reviewed plan: %s", r.Loc.Stack, r.Loc.Backend, r.Result.Summary.Text())}
	for _, st := range r.Result.Steps {
		if st.Op == pulumirun.OpSame {
			continue
		}
		out = append(out, fmt.Sprintf("  %s %s %s", st.Op.Sign(), st.Op, st.URN))
	}
	return out
}

// locatedTarget locates k's stack and builds what the CLI runs on it; the
// caller runs cleanup when done.
func (o *Ops) locatedTarget(ctx context.Context, k model.Key) (*Location, pulumirun.Target, func(), error) {
	loc, err := o.Locate(ctx, k)
	if err != nil {
		return nil, pulumirun.Target{}, nil, err
	}
	t, cleanup, err := o.target(ctx, loc)
	return loc, t, cleanup, err
}

// target builds what the CLI runs: the mapped local program, or a checkout of
// the Stack's repository at its commit (or branch head).
func (o *Ops) target(ctx context.Context, loc *Location) (pulumirun.Target, func(), error) {
	cli := o.CLI
	if cli == "" {
		var err error
		if cli, err = pulumirun.FindCLI(); err != nil {
			return pulumirun.Target{}, nil, err
		}
	}
	if t, ok := o.demoTarget(loc, cli); ok {
		return t, func() {}, nil
	}
	t := pulumirun.Target{Stack: loc.Stack, BackendURL: loc.Backend, Env: env(loc), CLI: cli}
	if loc.Local != nil {
		t.Dir = loc.Local.Dir
		return t, func() {}, nil
	}
	if loc.Repo == "" {
		return t, nil, fmt.Errorf("%s has no spec.projectRepo (Flux source or Program): map it to a local program in the config file", loc.Key.Ref())
	}
	dir, cleanup, err := pulumirun.Checkout(ctx, pulumirun.Source{Repo: loc.Repo, Commit: loc.Commit, Branch: loc.Branch, Dir: loc.RepoDir})
	if err != nil {
		return t, nil, err
	}
	t.Dir = dir
	return t, cleanup, nil
}
