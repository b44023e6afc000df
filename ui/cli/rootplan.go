package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

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
	return cmdline.Join(slices.Concat([]string{"driftdeck"}, rootmod.Flags(r.Given, r.Dir), args)...)
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
