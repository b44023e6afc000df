package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

func newDriftCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "drift pulumi/<namespace>/<name>",
		Short: "Check a Pulumi Stack for drift: a refresh preview lists what changed out of band",
		Long: `Run pulumi refresh --preview-only on the Stack's program and state backend (the
local directory mapped to it in the config file, else its repository at
spec.commit or the branch head): every resource is read from its provider and
compared with the state. Each drifted resource is printed as it is read:
~ update with the outputs that differ (old => new, secrets as [secret]), or
- delete when it is gone. Nothing is written, not even the state. Exit 1 when
something drifted, as diff does for differences; the Stack reads "drifted" in
the TUI until it applies again. pulumi refresh takes the real state into the
stack; driftdeck preview --approve puts the resources back as the program says.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return diffFailed(runDrift(cmd.Context(), g, args[0]))
		},
	}
}

func runDrift(ctx context.Context, g *globals, ref string) error {
	ops, k, err := connectStack(ctx, g, ref, "drift checks Pulumi Stacks; for an Argo CD Application, a Kustomization or a Terraform use driftdeck diff")
	if err != nil {
		return err
	}
	p := &stepPrinter{w: g.out, seen: map[int]bool{}, noSummary: true}
	fmt.Fprintf(g.errOut, "checking %s for drift (pulumi refresh --preview-only) …\n", k.Ref())
	rep, err := ops.DriftCheck(ctx, k, p.event)
	if err != nil {
		return err
	}
	n := len(rep.Result.Drifted())
	if n == 0 {
		fmt.Fprintf(g.errOut, "# no drift: all %d resources read as the state of %s says\n", len(rep.Result.Steps), rep.Loc.Stack)
		return nil
	}
	fmt.Fprintf(g.errOut, "# %d of %d resources drifted from the state of %s\n", n, len(rep.Result.Steps), rep.Loc.Stack)
	return &exitError{code: exitFailed, err: errDifferences}
}
