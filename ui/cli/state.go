package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

func newStateCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "state <backend-url>",
		Short: "List the stacks of a Pulumi state backend: last update, resources, lock holder, pending operations",
		Long: `Read a Pulumi state backend directly: a DIY bucket (file://, s3://, gs://,
azblob://, with the credentials the cloud SDKs find; all but file:// through
the driftdeck-state helper, found beside driftdeck or on PATH) or Pulumi Cloud
(https://api.pulumi.com, token from PULUMI_ACCESS_TOKEN or pulumi login), and
list every stack with its last update, resource count, lock holder (pid, user,
host, age, and whether it still runs when it ran here) and pending operations.
No cluster is needed.`,
		Example: "  driftdeck state file://$HOME/.pulumi-state\n  driftdeck state s3://acme-pulumi-state\n  driftdeck state https://api.pulumi.com",
		Args:    cobra.ExactArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return runState(cmd.Context(), g, args[0]) },
	}
}

func runState(ctx context.Context, g *globals, url string) error {
	be, err := pulumistate.Open(ctx, url)
	if err != nil {
		return &exitError{code: exitUnreachable, err: fmt.Errorf("opening %s: %w", url, err)}
	}
	defer be.Close()
	stacks, err := be.Stacks(ctx)
	if err != nil {
		return &exitError{code: exitUnreachable, err: fmt.Errorf("listing %s: %w", url, err)}
	}
	now := time.Now()
	tw := tabwriter.NewWriter(g.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STACK\tLAST UPDATE\tRESULT\tWHEN\tRESOURCES\tLOCK\tPENDING")
	for _, s := range stacks {
		if s.Partial {
			// Pulumi Cloud lists without locks and pending operations.
			if full, err := be.Stack(ctx, s.Ref); err == nil {
				s = full
			}
		}
		kind, result, when := "-", "-", "-"
		if u := s.LastUpdate; u != nil {
			kind, result = u.Kind, u.Result
			if !u.Start.IsZero() {
				when = model.HumanDuration(now.Sub(u.Start)) + " ago"
			}
		}
		res := "?"
		if s.Resources >= 0 {
			res = fmt.Sprint(s.Resources)
		}
		lock := "-"
		if len(s.Locks) > 0 {
			l := s.Locks[0]
			lock = fmt.Sprintf("pid %d %s@%s %s (%s)", l.PID, l.User, l.Host, model.HumanDuration(l.Age(now)), l.Holder)
		}
		var pending []string
		for _, p := range s.Pending {
			pending = append(pending, p.Type)
		}
		row := []string{s.Ref.String(), kind, result, when, res, lock, orDash(strings.Join(pending, ","))}
		for i, cell := range row {
			row[i] = safetext.Visible(cell)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if len(stacks) == 0 {
		fmt.Fprintln(tw, "(no stacks)")
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
