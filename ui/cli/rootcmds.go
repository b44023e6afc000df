package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/writeguard"
)

func newPlanCmd(g *globals) *cobra.Command {
	var lockWait time.Duration
	cmd := &cobra.Command{
		Use:   "plan root/<workspace>/<name>",
		Short: "Run tofu plan on a root module, save the plan and print it",
		Long: `Run the user's tofu (or terraform) plan on a root module (--root DIR, or
roots: in the config) with -lock=true and its var files, save the plan file
under its digest and print it per resource, sensitive values masked.
Nothing is applied: driftdeck approve applies exactly the saved plan, by its
id. As tofu plan -detailed-exitcode, and as driftdeck diff, it exits 0 when
the plan changes nothing and 1 when it changes something; a plan that
cannot take the state lock exits 6 and names the holder.`,
		Example: "  driftdeck --root ./infra/network plan root/default/network",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return diffFailed(runRootPlan(cmd.Context(), g, args[0], lockWait))
		},
	}
	cmd.Flags().DurationVar(&lockWait, "lock-timeout", 0, "how long to wait for the state lock (as tofu's -lock-timeout)")
	return cmd
}

// rootTarget is a root module named on the command line, with what runs it.
type rootTarget struct {
	root rootmod.Root
	tofu *rootmod.Tofu
}

// findRoot finds a root module unit among those selected (the demo's too,
// with --demo): no cluster is needed.
func findRoot(ctx context.Context, g *globals, k model.Key) (*rootTarget, error) {
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return nil, usageError(err)
	}
	list, err := rootsOf(g, cfg)
	if err != nil {
		return nil, err
	}
	tofu, tofuErr := tofuOf(cfg)
	if g.demo && tofuErr == nil {
		dir, err := stateDir()
		if err != nil {
			return nil, err
		}
		demoRoots, err := demo.Roots(ctx, dir, tofu)
		if err != nil {
			return nil, err
		}
		list = append(list, demoRoots...)
	}
	for _, r := range list {
		if r.Key() == (model.Key{Engine: k.Engine, Namespace: k.Namespace, Name: k.Name}) {
			if tofuErr != nil {
				return nil, tofuErr
			}
			return &rootTarget{root: r, tofu: tofu}, nil
		}
	}
	why := "give its directory with --root, or list it under roots: in the config"
	if g.demo && tofuErr != nil {
		why = "the demo's root modules are read with tofu, which is not installed: " + tofuErr.Error()
	}
	return nil, &exitError{code: exitNotFound, err: fmt.Errorf("%s: no such root module (%s)", k.Ref(), why)}
}

func parseRootRef(ref string) (model.Key, error) {
	k, err := model.ParseRef(ref)
	if err != nil {
		return model.Key{}, usageError(err)
	}
	if k.Context != "" {
		return model.Key{}, usageError(fmt.Errorf("%s: a root module is in no cluster context", ref))
	}
	return k, nil
}

func runRootPlan(ctx context.Context, g *globals, ref string, lockWait time.Duration) error {
	k, err := parseRootRef(ref)
	if err != nil {
		return err
	}
	if k.Engine != model.EngineRoot {
		return usageError(fmt.Errorf("%s: plan runs on root modules (root/<workspace>/<name>); for a Terraform of tofu-controller use `driftdeck diff %s`", ref, k.Ref()))
	}
	t, err := findRoot(ctx, g, k)
	if err != nil {
		return err
	}
	saved, err := t.tofu.Plan(ctx, t.root, rootmod.LocalIdentity(), lockWait, diff.Options{})
	if err != nil {
		return rootRunError(err)
	}
	return printRootPlan(g, t.root, saved)
}

// printRootPlan prints a saved plan, and how to apply exactly it; exit 1
// when it changes something.
func printRootPlan(g *globals, r rootmod.Root, saved *rootmod.Saved) error {
	fmt.Fprintf(g.errOut, "# %s, plan %s (tofu plan of %s against state serial %d, %s)\n", r.Key().Ref(), saved.ID, safetext.Visible(r.Dir), saved.Serial, saved.At.Local().Format(time.DateTime))
	if err := writeTFPlan(g, saved.Plan); err != nil {
		return err
	}
	if !saved.Changes {
		return nil
	}
	fmt.Fprintf(g.errOut, "# apply exactly this plan: %s --reason \"...\"\n", rootCommand(r, "approve", r.Key().Ref(), "--revision", saved.ID))
	return &exitError{code: exitFailed, err: errDifferences}
}

// rootCommand is a driftdeck command line on a root module, quoted for
// sh, with the --root flag that finds it again when one does.
func rootCommand(r rootmod.Root, args ...string) string {
	return cmdline.Join(slices.Concat([]string{"driftdeck"}, rootmod.Flags(r.Key(), r.Dir), args)...)
}

// rootRunError classifies what tofu refused: a lock it could not take is a
// refusal (exit 6) naming the holder, as tofu printed it.
func rootRunError(err error) error {
	var re *rootmod.RunError
	switch {
	case errors.As(err, &re) && strings.Contains(re.Stderr, "Error acquiring the state lock"):
		return &exitError{code: exitRefused, err: err}
	case errors.Is(err, rootmod.ErrStalePlan), errors.Is(err, rootmod.ErrNotLatest):
		return &exitError{code: exitRefused, err: err}
	case errors.Is(err, rootmod.ErrNoSuchPlan):
		return &exitError{code: exitNotFound, err: err}
	case errors.Is(err, writeguard.ErrReadOnly):
		return &exitError{code: exitForbidden, err: err}
	}
	return err
}

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

// isRootRef tells whether a unit reference names a root module.
func isRootRef(ref string) bool {
	k, err := model.ParseRef(ref)
	return err == nil && k.Engine == model.EngineRoot
}

// runRootDiff prints the plan of a root module saved last: what an
// approve applies.
func runRootDiff(ctx context.Context, g *globals, ref string) error {
	k, err := parseRootRef(ref)
	if err != nil {
		return err
	}
	t, err := findRoot(ctx, g, k)
	if err != nil {
		return err
	}
	rec, err := t.tofu.LatestPlan(t.root)
	if err != nil {
		return err
	}
	if rec == nil {
		return &exitError{code: exitNotFound, err: fmt.Errorf("%s: no plan saved yet: run %s", k.Ref(), rootCommand(t.root, "plan", k.Ref()))}
	}
	saved, err := t.tofu.ShowPlan(t.root, rec.ID, diff.Options{})
	if err != nil {
		return rootRunError(err)
	}
	if saved.Applied {
		saved.Plan.Warnings = append(saved.Plan.Warnings, "this plan was applied already")
	}
	return printRootPlan(g, t.root, saved)
}
