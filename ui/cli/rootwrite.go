package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

// rootOps are the guarded writes of the command line.
func rootOps(g *globals, t *rootTarget) (*rootmod.Ops, error) {
	log, err := openAudit()
	if err != nil {
		return nil, err
	}
	return &rootmod.Ops{Tofu: t.tofu, Audit: log, ReadOnly: g.readOnly, DryRun: g.dryRun}, nil
}

// runRootAction is approve (apply exactly the saved plan named, else the
// newest) and force-unlock (break exactly the lock named, else the one
// held now, shown first) on a root module.
func runRootAction(ctx context.Context, g *globals, kind actions.Kind, o *actionOpts, ref string) error {
	k, err := parseRootRef(ref)
	if err != nil {
		return err
	}
	if strings.TrimSpace(o.reason) == "" {
		return usageError(fmt.Errorf("--reason is required: it goes into the audit log"))
	}
	if err := confirmable(g, o.yes, string(kind)); err != nil {
		return err
	}
	t, err := findRoot(ctx, g, k)
	if err != nil {
		return err
	}
	ops, err := rootOps(g, t)
	if err != nil {
		return err
	}
	switch kind {
	case actions.Approve:
		return approveRootPlan(ctx, g, t, ops, o)
	case actions.ForceUnlock:
		return forceUnlockRoot(ctx, g, t, ops, o)
	}
	return usageError(fmt.Errorf("%s: a root module is planned (driftdeck plan), approved (its plan applied) and force-unlocked; not %s", ref, kind))
}

func approveRootPlan(ctx context.Context, g *globals, t *rootTarget, ops *rootmod.Ops, o *actionOpts) error {
	id := o.revision
	if id == "" {
		rec, err := t.tofu.LatestPlan(t.root)
		if err != nil {
			return err
		}
		if rec == nil || rec.Applied || !rec.Changes {
			return &exitError{code: exitRefused, err: fmt.Errorf("%s: no plan waits to be applied: run driftdeck plan first", t.root.Key().Ref())}
		}
		id = rec.ID
	}
	saved, err := t.tofu.ShowPlan(t.root, id, diff.Options{})
	if err != nil {
		return rootRunError(err)
	}
	fmt.Fprintf(g.errOut, "# will apply plan %s of %s, made %s by %s against state serial %d:\n", saved.ID, t.root.Key().Ref(), saved.At.Local().Format(time.DateTime), safetext.Visible(saved.By), saved.Serial)
	if err := writeTFPlan(g, saved.Plan); err != nil {
		return err
	}
	if mustAsk(g, o.yes) {
		if err := confirm(g, "Apply exactly this plan?"); err != nil {
			return err
		}
	}
	w, out, err := ops.Apply(ctx, t.root, id, o.reason)
	printWarnings(g, w)
	if errors.Is(err, rootmod.ErrStalePlan) || errors.Is(err, rootmod.ErrNotLatest) {
		fmt.Fprintf(g.errOut, "refused: %s; nothing applied. The plan against the state now:\n", safetext.Visible(err.Error()))
		if fresh, perr := t.tofu.Plan(ctx, t.root, rootmod.LocalIdentity(), 0, diff.Options{}); perr == nil {
			_ = printRootPlan(g, t.root, fresh)
		}
		return rootRunError(err)
	}
	if err != nil {
		return rootRunError(err)
	}
	if w.DryRun {
		fmt.Fprintf(g.out, "DRY RUN (nothing applied): would apply plan %s of %s\n", id, t.root.Key().Ref())
		return nil
	}
	fmt.Fprint(g.errOut, safetext.Block(string(out)))
	fmt.Fprintf(g.out, "done: applied plan %s of %s (by %s)\n", id, t.root.Key().Ref(), safetext.Visible(w.Actor))
	return nil
}

func forceUnlockRoot(ctx context.Context, g *globals, t *rootTarget, ops *rootmod.Ops, o *actionOpts) error {
	lock, backend, err := t.tofu.ReadLock(ctx, t.root)
	if err != nil {
		return &exitError{code: exitRefused, err: fmt.Errorf("%s: %w", t.root.Key().Ref(), err)}
	}
	switch {
	case lock == nil:
		fmt.Fprintf(g.out, "unchanged: %s's state is not locked\n", t.root.Key().Ref())
		return nil
	case backend == "local":
		return &exitError{code: exitRefused, err: fmt.Errorf("%s: the state is locked by a process that still runs on this machine (%s): end it, and its lock goes with it", t.root.Key().Ref(), safetext.Visible(lock.Who))}
	case o.lockID != "" && o.lockID != lock.ID:
		return &exitError{code: exitRefused, err: fmt.Errorf("%s: the lock held now is %s, not %s: another run took it since; nothing broken", t.root.Key().Ref(), safetext.Visible(lock.ID), safetext.Visible(o.lockID))}
	}
	fmt.Fprintf(g.errOut, "# the %s backend's lock of %s:\n%s", backend, t.root.Key().Ref(), describeRootLock(lock, time.Now()))
	if mustAsk(g, o.yes) {
		if err := confirm(g, "Break this lock?"); err != nil {
			return err
		}
	}
	w, err := ops.ForceUnlock(ctx, t.root, lock.ID, o.reason)
	printWarnings(g, w)
	if err != nil {
		return rootRunError(err)
	}
	if w.DryRun {
		fmt.Fprintf(g.out, "DRY RUN (nothing broken): would run tofu force-unlock %s on %s\n", safetext.Visible(lock.ID), t.root.Key().Ref())
		return nil
	}
	fmt.Fprintf(g.out, "done: broke lock %s of %s (by %s)\n", safetext.Visible(lock.ID), t.root.Key().Ref(), safetext.Visible(w.Actor))
	return nil
}

// describeRootLock is a lock as tofu prints its Lock Info.
func describeRootLock(l *model.RootLock, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  ID:        %s\n", safetext.Visible(l.ID))
	fmt.Fprintf(&b, "  Operation: %s\n", safetext.Visible(l.Operation))
	fmt.Fprintf(&b, "  Who:       %s\n", safetext.Visible(l.Who))
	if !l.Created.IsZero() {
		fmt.Fprintf(&b, "  Created:   %s (%s ago)\n", l.Created.Local().Format(time.DateTime), model.HumanDuration(now.Sub(l.Created)))
	}
	if l.Version != "" {
		fmt.Fprintf(&b, "  Version:   %s\n", safetext.Visible(l.Version))
	}
	if l.Info != "" {
		fmt.Fprintf(&b, "  Info:      %s\n", safetext.Visible(l.Info))
	}
	return b.String()
}

func printWarnings(g *globals, w *writeguard.Write) {
	if w == nil {
		return
	}
	for _, warn := range w.Warnings {
		fmt.Fprintf(g.errOut, "warning: %s\n", safetext.Visible(warn))
	}
}
