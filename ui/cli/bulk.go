package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/undo"
)

// selection picks units for a bulk action as kubectl picks objects; -n (a
// global flag) selects a namespace.
type selection struct {
	selector string
	engines  []string
	states   []string
	all      bool
}

func (s *selection) addFlags(f *pflag.FlagSet) {
	f.StringVarP(&s.selector, "selector", "l", "", "label selector on the objects, e.g. team=payments")
	f.StringSliceVar(&s.engines, "engine", nil, engineFlagHelp())
	f.StringSliceVar(&s.states, "state", nil, "only units in these states (as for status --state)")
	f.BoolVar(&s.all, "all", false, "select every unit (needed when nothing else selects)")
}

// any tells whether a flag other than -n selects units.
func (s *selection) any() bool {
	return s.selector != "" || len(s.engines) > 0 || len(s.states) > 0 || s.all
}

func newBulkCmds(g *globals) []*cobra.Command {
	return []*cobra.Command{
		newBulkAlias(g, "freeze", actions.Pause, "Incident freeze: pause many units at once, with one reason and expiry",
			`Pause every selected unit: Argo CD auto-sync and self-heal off, Pulumi Stacks
to preview-only. Each object records who, why, when, until and its exact
previous state (driftdeck.io/paused-* annotations). The same as pause with
several units.`),
		newBulkAlias(g, "thaw", actions.Resume, "End a freeze: resume many units, each to its recorded state",
			`Resume every selected unit that driftdeck paused, restoring exactly the state
its pause recorded. A unit changed since its pause is left alone and listed.
Selected by flags, only paused units are taken. The same as resume with
several units.`),
	}
}

func newBulkAlias(g *globals, name string, kind actions.Kind, short, long string) *cobra.Command {
	o := &actionOpts{}
	cmd := &cobra.Command{
		Use:     name + " (<engine>/<namespace>/<name> ... | -l <selector> | -n <namespace> | --engine <engine> | --all)",
		Short:   short,
		Long:    long + "\n\n" + bulkHelp,
		Example: "  driftdeck " + name + " -n team-payments --reason \"INC-1234\"\n  driftdeck " + name + " -l team=payments --engine argocd --reason \"INC-1234\" --yes",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBulk(cmd.Context(), g, kind, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.reason, "reason", "", "why (required): goes into every Event and the audit log")
	f.BoolVar(&o.yes, "yes", false, "do not ask for confirmation (needed without a terminal)")
	o.sel.addFlags(f)
	if kind == actions.Pause {
		f.StringVar(&o.until, "until", "", "expiry: a duration (2h) or a time; shown as expired after it")
	}
	return cmd
}

// runBulk does one action on every named or selected unit through the
// backend's Bulk call and reports each unit.
func runBulk(ctx context.Context, g *globals, kind actions.Kind, o *actionOpts, names []string) error {
	if o.selfHealOnly || o.revision != "" || o.lockID != "" || len(o.resources) > 0 {
		return usageError(errors.New("--self-heal-only, --revision, --lock and --resource are for one unit: name exactly one"))
	}
	req, err := o.request(kind)
	if err != nil {
		return err
	}
	ask := actions.Destructive(kind) && mustAsk(g, o.yes)
	if ask {
		if err := confirmable(g, o.yes, string(kind)); err != nil {
			return err
		}
	}
	keys, routes, err := o.sel.resolve(ctx, g, kind, names)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		return &exitError{code: exitNotFound, err: errors.New("no unit matches: nothing to do")}
	}
	fmt.Fprintf(g.errOut, "%s%s %d units", dryRunLabel(g), kind, len(keys))
	if req.Reason != "" {
		fmt.Fprintf(g.errOut, " (reason %q", safetext.Visible(req.Reason))
		if !req.Until.IsZero() {
			fmt.Fprintf(g.errOut, ", until %s", req.Until.UTC().Format(time.RFC3339))
		}
		fmt.Fprint(g.errOut, ")")
	}
	fmt.Fprintln(g.errOut, ":")
	for _, k := range keys {
		fmt.Fprintf(g.errOut, "  %s\n", safetext.Visible(k.String()))
	}
	exec, err := newExecutor(g, routes.clusters, routes.argo)
	if err != nil {
		return err
	}
	br := actions.BulkRequest{Kind: kind, Keys: keys, Reason: req.Reason, Until: req.Until, Prune: req.Prune, SyncChoices: req.SyncChoices, WithSource: req.WithSource}
	if ask || g.dryRun {
		shown := printBulkPlans(ctx, g.errOut, exec, br)
		if kind == actions.Resume {
			fc := &forecaster{make: func() (undo.Differ, error) { return forecastSource(ctx, g, routes.clusters, routes.argo) }}
			printForecastSummaries(ctx, g, g.errOut, fc, plansInOrder(keys, shown))
		}
		if ask {
			// What is confirmed is what is written: each plan printed.
			br.Shown = shown
		}
	}
	if ask {
		if err := confirm(g, "Proceed?"); err != nil {
			return err
		}
	}
	outcomes := exec.Bulk(ctx, br)
	return reportBulk(g, outcomes, settleAll(ctx, exec, outcomes))
}

// printBulkPlans shows what a bulk action writes to each unit, as a single
// action does before it is confirmed, and returns the plans shown; the
// ApplicationSet entries of a pause or resume are shown once, as the bulk
// write makes them.
func printBulkPlans(ctx context.Context, w io.Writer, exec *actions.Executor, r actions.BulkRequest) map[model.Key]*actions.Plan {
	owners := r.Kind == actions.Pause || r.Kind == actions.Resume
	plans := map[model.Key]*actions.Plan{}
	for _, k := range r.Keys {
		p, err := exec.Plan(ctx, actions.Request{Kind: r.Kind, Key: k, Reason: r.Reason, Until: r.Until, Prune: r.Prune, SyncChoices: r.SyncChoices, WithSource: r.WithSource})
		if err != nil {
			fmt.Fprintf(w, "%s: %s\n", safetext.Visible(k.String()), safetext.Visible(err.Error()))
			continue
		}
		plans[k] = p
		shown := *p
		if owners {
			shown.Also = nil
		}
		printPlan(w, &shown, "Will write")
	}
	if !owners {
		return plans
	}
	for _, o := range exec.OwnerWrites(ctx, r) {
		verb, sign, when := "Also adds to", "+", "before the child's pause"
		switch {
		case o.Remove:
			verb, sign, when = "Also removes from", "-", "after each child is resumed"
		case o.OnePatch:
			when = "in one patch, before any child is paused"
		}
		fmt.Fprintf(w, "%s %s spec.ignoreApplicationDifferences, %s:\n", verb, safetext.Visible(o.Object), when)
		for _, e := range o.Entries {
			b, _ := json.Marshal(e)
			fmt.Fprintf(w, "  %s %s\n", sign, safetext.Visible(string(b)))
		}
	}
	return plans
}

// plansInOrder are the plans of keys that have one, in the keys' order.
func plansInOrder(keys []model.Key, plans map[model.Key]*actions.Plan) []*actions.Plan {
	var out []*actions.Plan
	for _, k := range keys {
		if p, ok := plans[k]; ok {
			out = append(out, p)
		}
	}
	return out
}

func dryRunLabel(g *globals) string {
	if g.dryRun {
		return "DRY RUN (nothing persisted): "
	}
	return ""
}

// settleAll checks every applied write for an owner's revert, at once.
func settleAll(ctx context.Context, exec *actions.Executor, outcomes []actions.BulkOutcome) [][]string {
	out := make([][]string, len(outcomes))
	var wg sync.WaitGroup
	for i, o := range outcomes {
		if o.Outcome != actions.OutcomeApplied {
			continue
		}
		wg.Go(func() { out[i] = exec.Settled(ctx, o.Result) })
	}
	wg.Wait()
	return out
}

// resolve turns names, or the selection flags, into unit keys and the
// clusters to act in.
func (s *selection) resolve(ctx context.Context, g *globals, kind actions.Kind, names []string) ([]model.Key, *writeRoutes, error) {
	if len(names) > 0 && s.any() {
		return nil, nil, usageError(errors.New("name units or select them with flags, not both"))
	}
	if len(names) > 0 {
		set, err := connectClusters(ctx, g)
		if err != nil {
			return nil, nil, err
		}
		keys := make([]model.Key, 0, len(names))
		for _, n := range names {
			k, err := set.resolve(n)
			if err != nil {
				return nil, nil, err
			}
			keys = append(keys, k)
		}
		return keys, &writeRoutes{clusters: set.get, argo: set.argoAPI}, nil
	}
	if !s.any() && g.namespace() == "" {
		return nil, nil, usageError(fmt.Errorf("name the units to %s, or select them: -l, -n, --engine, --state, or --all for every unit", kind))
	}
	sel := labels.Everything()
	if s.selector != "" {
		parsed, err := labels.Parse(s.selector)
		if err != nil {
			return nil, nil, usageError(fmt.Errorf("-l %q: %w", s.selector, err))
		}
		sel = parsed
	}
	keep, err := unitFilter(s.engines, s.states)
	if err != nil {
		return nil, nil, usageError(err)
	}
	if g.engines, err = readEngines(s.engines); err != nil {
		return nil, nil, usageError(err)
	}
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return nil, nil, usageError(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, g.requestTimeout(60*time.Second))
	defer cancel()
	// The watches are only for choosing the units: they end with this call
	// (the clusters' clients stay usable for the writes). The demo's control
	// plane lives as long as the command: its end would also end the demo's
	// sources and programs, which the resume forecasts read.
	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	if g.demo {
		watchCtx = ctx
	}
	f, err := connect(watchCtx, g, cfg.StuckThresholds(), false)
	if err != nil {
		return nil, nil, err
	}
	if err := awaitModel(waitCtx, g, f); err != nil {
		return nil, nil, err
	}
	var keys []model.Key
	for _, u := range f.Store.Snapshot() {
		if !keep(u) || !sel.Matches(u.Labels) || (kind == actions.Resume && u.Pause == nil) {
			continue
		}
		if len(actions.KindsFor(u.Key.Engine)) == 0 {
			continue // no action reaches it (an ApplicationSet's row): never a target of a selection
		}
		keys = append(keys, u.Key)
	}
	return keys, &writeRoutes{clusters: f.Cluster, argo: f.ArgoAPI}, nil
}

// writeRoutes are the ways to the selected units: their clusters, and Argo
// CD's API server where that is a context's route.
type writeRoutes struct {
	clusters func(string) (*kube.Cluster, bool)
	argo     func(string) (*argoapi.Client, bool)
}

// reportBulk prints each unit's outcome and the counts; a failure, or a
// write reverted after it was applied, exits 1.
func reportBulk(g *globals, outcomes []actions.BulkOutcome, settled [][]string) error {
	var applied, skipped, failed, unknown int
	for i, o := range outcomes {
		key := safetext.Visible(o.Key.String())
		switch {
		case o.Outcome == actions.OutcomeUnknown:
			unknown++
			fmt.Fprintf(g.out, "unknown  %s: %s\n", key, safetext.Visible(o.Why))
		case o.Outcome == actions.OutcomeFailed:
			failed++
			fmt.Fprintf(g.out, "failed   %s: %s\n", key, safetext.Visible(o.Why))
		case o.Outcome == actions.OutcomeSkipped:
			skipped++
			fmt.Fprintf(g.out, "skipped  %s: %s\n", key, safetext.Visible(o.Why))
		case !o.Result.Verified || len(settled[i]) > 0:
			failed++
			fmt.Fprintf(g.out, "failed   %s: written but not in effect: %s\n", key, safetext.Visible(strings.Join(append(o.Result.Warnings, settled[i]...), "; ")))
		default:
			applied++
			line := "applied  " + key
			if len(o.Result.Warnings) > 0 {
				line += "  (" + safetext.Visible(strings.Join(o.Result.Warnings, "; ")) + ")"
			}
			fmt.Fprintln(g.out, line)
		}
	}
	summary := fmt.Sprintf("%s%d applied, %d skipped, %d failed", dryRunLabel(g), applied, skipped, failed)
	if unknown > 0 {
		summary += fmt.Sprintf(", %d unknown (the answer was lost: look before retrying)", unknown)
	}
	fmt.Fprintln(g.out, summary)
	if failed+unknown > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("%d of %d units failed or are unknown (listed above)", failed+unknown, len(outcomes))}
	}
	return nil
}
