package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/model"
)

type bulkOpts struct {
	actionOpts
	selector string
	engines  []string
	states   []string
	all      bool
}

func newBulkCmds(g *globals) []*cobra.Command {
	return []*cobra.Command{newBulkCmd(g, actions.Pause), newBulkCmd(g, actions.Resume)}
}

func newBulkCmd(g *globals, kind actions.Kind) *cobra.Command {
	o := &bulkOpts{}
	name, short := "freeze", "Incident freeze: pause many units at once, with one reason and expiry"
	long := `Pause every selected unit: Argo CD auto-sync and self-heal off, Pulumi Stacks
to preview-only. Each object records who, why, when, until and its exact
previous state (driftdeck.io/paused-* annotations); units with nothing to pause
are skipped and listed. Select units by name, or by -l/--engine/--state/-n
(--all for every unit).`
	if kind == actions.Resume {
		name, short = "thaw", "End a freeze: resume many units, each to its recorded state"
		long = `Resume every selected unit that driftdeck paused, restoring exactly the state
its pause recorded. A unit changed since its pause is left alone and listed.
Without names, selects every paused unit matching -l/--engine/-n.`
	}
	cmd := &cobra.Command{
		Use:     name + " [<engine>/<namespace>/<name> ...]",
		Short:   short,
		Long:    long + "\n" + exitCodesHelp,
		Example: "  driftdeck " + name + " -n payments --reason \"INC-1234\" --until 2h\n  driftdeck " + name + " -l team=checkout --engine argocd --reason \"INC-1234\" --yes",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBulk(cmd.Context(), g, kind, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.reason, "reason", "", "why (required): goes into every Event and the audit log")
	f.BoolVar(&o.yes, "yes", false, "do not ask for confirmation")
	f.StringVarP(&o.selector, "selector", "l", "", "label selector on the objects, e.g. team=checkout")
	f.StringSliceVar(&o.engines, "engine", nil, "only these engines (argocd, pulumi)")
	if kind == actions.Pause {
		f.StringVar(&o.until, "until", "", "expiry: a duration (2h) or a time; shown as expired after it")
		f.StringSliceVar(&o.states, "state", nil, "only units in these states (see `status --state`)")
		f.BoolVar(&o.all, "all", false, "select every unit (needed when no other selector is given)")
	}
	return cmd
}

func runBulk(ctx context.Context, g *globals, kind actions.Kind, o *bulkOpts, args []string) error {
	reason := strings.TrimSpace(o.reason)
	if reason == "" {
		return &exitError{code: exitUsage, err: errors.New("--reason is required: it goes into every Event and the audit log")}
	}
	var until time.Time
	if o.until != "" {
		t, err := parseUntil(o.until, time.Now())
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		until = t
	}
	units, err := selectUnits(ctx, g, kind, o, args)
	if err != nil {
		return err
	}
	if len(units) == 0 {
		return &exitError{code: exitRefused, err: errors.New("no unit matches: nothing to do")}
	}
	verb := map[actions.Kind]string{actions.Pause: "pause", actions.Resume: "resume"}[kind]
	fmt.Fprintf(g.errOut, "Will %s %d units (reason %q", verb, len(units), reason)
	if !until.IsZero() {
		fmt.Fprintf(g.errOut, ", until %s", until.UTC().Format(time.RFC3339))
	}
	fmt.Fprintln(g.errOut, "):")
	for _, u := range units {
		fmt.Fprintf(g.errOut, "  %s\n", u.Key)
	}
	if !o.yes {
		ok, err := confirm(g, "Proceed?")
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if !ok {
			return &exitError{code: exitRefused, err: errors.New("not confirmed: nothing written")}
		}
	}
	set, err := connectClusters(ctx, g)
	if err != nil {
		return err
	}
	exec, err := newExecutor(g, set)
	if err != nil {
		return err
	}
	return reportBulk(g, verb, exec.Bulk(ctx, actions.BulkRequest{Kind: kind, Keys: keysOf(units), Reason: reason, Until: until}))
}

// selectUnits resolves names, or lists the model once and filters it.
func selectUnits(ctx context.Context, g *globals, kind actions.Kind, o *bulkOpts, args []string) ([]*model.Unit, error) {
	if len(args) > 0 && (o.selector != "" || len(o.engines) > 0 || len(o.states) > 0 || o.all) {
		return nil, &exitError{code: exitUsage, err: errors.New("name units or select them with flags, not both")}
	}
	if len(args) == 0 && kind == actions.Pause && !o.all && o.selector == "" && len(o.engines) == 0 && len(o.states) == 0 && g.namespace() == "" {
		return nil, &exitError{code: exitUsage, err: errors.New("select what to freeze: unit names, -l, --engine, --state, -n, or --all for every unit")}
	}
	sel := labels.Everything()
	if o.selector != "" {
		s, err := labels.Parse(o.selector)
		if err != nil {
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("-l %q: %w", o.selector, err)}
		}
		sel = s
	}
	keep, err := unitFilter(o.engines, o.states)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	waitCtx, cancel := context.WithTimeout(ctx, g.requestTimeout(60*time.Second))
	defer cancel()
	f, err := connect(waitCtx, g, cfg.StuckThresholds(), false)
	if err != nil {
		return nil, err
	}
	if err := f.WaitSynced(waitCtx); err != nil {
		return nil, &exitError{code: exitUnreachable, err: err}
	}
	byRef := map[string]*model.Unit{}
	var out []*model.Unit
	for _, u := range f.Store.Snapshot() {
		byRef[u.Key.Ref()], byRef[u.Key.String()] = u, u
		if len(args) > 0 || !keep(u) || !sel.Matches(labels.Set(u.Labels)) {
			continue
		}
		if kind == actions.Resume && u.Pause == nil {
			continue
		}
		out = append(out, u)
	}
	for _, a := range args {
		u, ok := byRef[a]
		if !ok {
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("unit %q not found", a)}
		}
		out = append(out, u)
	}
	return out, nil
}

func reportBulk(g *globals, verb string, outcomes []actions.BulkOutcome) error {
	var done, skipped, failed int
	for _, o := range outcomes {
		switch {
		case o.Outcome == actions.OutcomeFailed:
			failed++
			fmt.Fprintf(g.out, "FAILED   %s: %s\n", o.Key, o.Why)
		case o.Outcome == actions.OutcomeSkipped:
			skipped++
			fmt.Fprintf(g.out, "skipped  %s: %s\n", o.Key, o.Why)
		default:
			done++
			line := fmt.Sprintf("%-8s %s", verb+"d", o.Key)
			if len(o.Result.Warnings) > 0 {
				line += "  (" + strings.Join(o.Result.Warnings, "; ") + ")"
			}
			fmt.Fprintln(g.out, line)
		}
	}
	fmt.Fprintf(g.out, "%d %sd, %d skipped, %d failed\n", done, verb, skipped, failed)
	if failed > 0 {
		return &exitError{code: exitFailed, err: fmt.Errorf("%d of %d units could not be %sd (listed above)", failed, len(outcomes), verb)}
	}
	return nil
}
