package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

func newStackOps(g *globals, set *clusterSet) (*stackops.Ops, error) {
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return nil, usageError(err)
	}
	exec, err := newExecutor(g, set.get, set.argoAPI)
	if err != nil {
		return nil, err
	}
	return &stackops.Ops{Cluster: set.get, Programs: cfg.Stacks, Audit: exec.Audit, ReadOnly: g.readOnly, DryRun: g.dryRun}, nil
}

// connectStack connects to the context of the Stack ref names, checks that
// it exists, and returns the Stack operations for it; notStack says what
// to use instead when ref is not a Stack.
func connectStack(ctx context.Context, g *globals, ref, notStack string) (*stackops.Ops, model.Key, error) {
	set, k, err := connectUnit(ctx, g, ref)
	if err != nil {
		return nil, k, err
	}
	if k.Engine != model.EnginePulumi {
		return nil, k, usageError(fmt.Errorf("%s: %s", ref, notStack))
	}
	if err := lookUnit(ctx, set, k); err != nil {
		return nil, k, err
	}
	ops, err := newStackOps(g, set)
	return ops, k, err
}

func newPreviewCmd(g *globals) *cobra.Command {
	var approve, yes bool
	var reason string
	cmd := &cobra.Command{
		Use:   "preview pulumi/<namespace>/<name>",
		Short: "Stream a Pulumi preview of a Stack, step by step; --approve applies exactly that plan",
		Long: `Run pulumi preview on the Stack's program (the local directory mapped to it in
the config file, else its repository at spec.commit or the branch head) with its
state backend, printing each resource step as it arrives: operation, type,
name, changed properties (old => new, secrets as [secret]) and what forces a
replacement. The plan is saved; with --approve, after confirmation, pulumi up
runs bound to that plan, so the apply cannot differ from what was shown (a
changed program or state makes it fail). Only Stacks mapped to a local program
are applied this way; approve an operator Stack's commit with driftdeck approve.
The pulumi CLI is run through the driftdeck-pulumi helper, found beside
driftdeck, on PATH, or at $DRIFTDECK_PULUMI_HELPER. With --dry-run, --approve
runs no up and prints, labelled DRY RUN, exactly what it would apply.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPreview(cmd.Context(), g, args[0], approve, yes, reason)
		},
	}
	cmd.Flags().BoolVar(&approve, "approve", false, "after the preview, apply exactly its plan")
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask before applying")
	cmd.Flags().StringVar(&reason, "reason", "", "why (required with --approve): goes into the Event and the audit log")
	return cmd
}

func runPreview(ctx context.Context, g *globals, ref string, approve, yes bool, reason string) error {
	if approve && strings.TrimSpace(reason) == "" {
		return usageError(errors.New("--reason is required with --approve"))
	}
	if approve {
		if err := confirmable(g, yes, "preview --approve"); err != nil {
			return err
		}
	}
	ops, k, err := connectStack(ctx, g, ref, "preview is for Pulumi Stacks; for an Argo CD Application use driftdeck diff")
	if err != nil {
		return err
	}
	p := &stepPrinter{w: g.out, seen: map[int]bool{}}
	fmt.Fprintf(g.errOut, "previewing %s …\n", k.Ref())
	rv, err := ops.Preview(ctx, k, p.event)
	if err != nil {
		return err
	}
	defer rv.Close()
	if !approve {
		return nil
	}
	if mustAsk(g, yes) {
		if err := confirm(g, "Apply exactly this plan?"); err != nil {
			return err
		}
	}
	ap := &stepPrinter{w: g.out, seen: map[int]bool{}}
	_, done, err := ops.Approve(ctx, rv, reason, ap.event)
	if err != nil {
		return err
	}
	printDone(g, done, "applied the reviewed plan to "+k.Ref())
	return nil
}

// printDone reports a state-backend write or a plan-bound up; in dry-run it
// is exactly what would have been written, and says so.
func printDone(g *globals, d *stackops.Done, what string) {
	if d.DryRun {
		fmt.Fprintln(g.out, "DRY RUN: nothing was written. Would write:")
	}
	for _, line := range d.Did {
		fmt.Fprintf(g.out, "  %s\n", safetext.Visible(line))
	}
	if d.DryRun {
		fmt.Fprintf(g.out, "DRY RUN: not %s\n", what)
		return
	}
	fmt.Fprintf(g.out, "done: %s\n", what)
}

// stalePlan tells a pulumi up refused because the program or state changed
// since the reviewed preview.
func stalePlan(err error) bool {
	var changed *pulumirun.PlanChangedError
	return errors.As(err, &changed)
}

// stepPrinter writes each step once, as it first arrives, then the summary.
type stepPrinter struct {
	w    io.Writer
	seen map[int]bool
	// noSummary leaves out the engine's summary: a drift check counts in
	// its own words.
	noSummary bool
}

func (p *stepPrinter) event(e pulumirun.Event) {
	switch {
	case e.Step != nil:
		s := e.Step
		if p.seen[s.Seq] || s.Op == pulumirun.OpSame {
			return
		}
		p.seen[s.Seq] = true
		fmt.Fprintf(p.w, "%s %-8s %-32s %s\n", s.Op.Sign(), s.Op, safetext.Visible(s.Type), safetext.Visible(s.Name))
		for _, d := range s.Diffs {
			fmt.Fprintln(p.w, "      "+safetext.Visible(d.String()))
		}
		if len(s.ReplaceKeys) > 0 {
			fmt.Fprintf(p.w, "      replaced because of: %s\n", safetext.Visible(strings.Join(s.ReplaceKeys, ", ")))
		}
	case e.Diag != nil && (e.Diag.Severity == "error" || e.Diag.Severity == "warning"):
		fmt.Fprintf(p.w, "%s: %s\n", safetext.Visible(e.Diag.Severity), safetext.Block(strings.TrimSpace(e.Diag.Message)))
	case e.Summary != nil && !p.noSummary:
		fmt.Fprintf(p.w, "summary: %s (%s, %s)\n", safetext.Visible(e.Summary.Text()), safetext.Visible(e.Summary.Result), e.Summary.Duration)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func newUnlockCmd(g *globals) *cobra.Command {
	var clearPending, force, yes bool
	var reason string
	cmd := &cobra.Command{
		Use:   "unlock pulumi/<namespace>/<name>",
		Short: "Show who holds a Stack's state lock and break it when that run is dead",
		Long: `Read the Stack's state backend (spec.backend, or the config file's mapping) and
show its lock: pid, user, host and age, whether that process still runs (when
it ran on this host), and pending operations. After confirmation, delete the
lock (DIY backends) or cancel the update holding it (Pulumi Cloud);
--clear-pending also forgets the pending operations (a backup of the state is
kept). A lock whose process still runs on this host is refused without --force.
Then re-request a run with driftdeck retry. With --dry-run nothing is written:
it prints, labelled DRY RUN, exactly what it would delete or rewrite.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUnlock(cmd.Context(), g, args[0], clearPending, force, yes, reason)
		},
	}
	cmd.Flags().BoolVar(&clearPending, "clear-pending", false, "also forget the pending operations a killed run left")
	cmd.Flags().BoolVar(&force, "force", false, "break a lock even though its process still runs on this host")
	cmd.Flags().BoolVar(&yes, "yes", false, "do not ask for confirmation (needed without a terminal)")
	cmd.Flags().StringVar(&reason, "reason", "", "why (required): goes into the Event and the audit log")
	return cmd
}

func runUnlock(ctx context.Context, g *globals, ref string, clearPending, force, yes bool, reason string) error {
	if strings.TrimSpace(reason) == "" {
		return usageError(errors.New("--reason is required: it goes into the Event and the audit log"))
	}
	if err := confirmable(g, yes, "unlock"); err != nil {
		return err
	}
	set, k, err := connectUnit(ctx, g, ref)
	if err != nil {
		return err
	}
	if err := lookUnit(ctx, set, k); err != nil {
		return err
	}
	ops, err := newStackOps(g, set)
	if err != nil {
		return err
	}
	plan, err := ops.PlanUnstick(ctx, k, clearPending, force)
	if err != nil {
		return err
	}
	defer plan.Close()
	printState(g.errOut, plan.Info, plan.Loc.Backend, time.Now())
	fmt.Fprintln(g.errOut, "Will change:")
	for _, c := range plan.Changes() {
		fmt.Fprintf(g.errOut, "  %s\n", safetext.Visible(c))
	}
	if mustAsk(g, yes) {
		if err := confirm(g, "Proceed?"); err != nil {
			return err
		}
	}
	done, err := ops.Apply(ctx, plan, reason)
	if err != nil {
		return err
	}
	printDone(g, done, "unstuck "+k.Ref())
	if !done.DryRun {
		fmt.Fprintf(g.out, "run `%s` to re-request a run\n", safetext.Visible(g.origin().Driftdeck(k.Context, "retry", k.Ref(), "--reason", reason)))
	}
	return nil
}

// printState shows a stack's state as unlock needs it: the lock's owner first.
func printState(w io.Writer, info *pulumistate.StackInfo, backend string, now time.Time) {
	v := safetext.Visible
	fmt.Fprintf(w, "stack %s in %s\n", v(info.Ref.String()), v(backend))
	for _, l := range info.Locks {
		fmt.Fprintf(w, "  lock %s held by pid %d, user %s, host %s, for %s (process %s)\n",
			v(l.ID), l.PID, v(orNone(l.User)), v(orNone(l.Host)), model.HumanDuration(l.Age(now)), v(fmt.Sprint(l.Holder)))
	}
	if len(info.Locks) == 0 {
		fmt.Fprintln(w, "  no lock held")
	}
	for _, p := range info.Pending {
		fmt.Fprintf(w, "  pending %s %s\n", v(p.Type), v(p.URN))
	}
	if u := info.LastUpdate; u != nil {
		fmt.Fprintf(w, "  last update: %s %s, %s\n", v(u.Kind), v(u.Result), u.Start.Format(time.RFC3339))
	}
	if info.Resources >= 0 {
		fmt.Fprintf(w, "  resources: %d\n", info.Resources)
	}
}
