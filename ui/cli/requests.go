package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

func newRequestsCmd(g *globals) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "requests",
		Short: "List change requests: each with its unit, action, requester, reviews and state",
		Long: `Lists the change requests of the selected contexts (-n: of one namespace),
oldest first. The state is the agent's once it closed the request (Applied,
Stale, Expired, Failed ...), else what the reviews and the clock say.
-o wide adds the reason, the expiry and why; -o json prints each request
whole, its stored write included.`,
		Example: "  driftdeck requests -n team-a\n  driftdeck requests -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "table" && output != "wide" && output != "json" {
				return usageError(fmt.Errorf("-o %q: want table, wide or json", output))
			}
			return runRequests(cmd.Context(), g, output)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table, wide or json")
	return cmd
}

// listedRequest is one request of one context.
type listedRequest struct {
	context string
	cr      *changereq.ChangeRequest
}

func runRequests(ctx context.Context, g *globals, output string) error {
	set, err := connectClusters(ctx, g)
	if err != nil {
		return err
	}
	var all []listedRequest
	var failed []error
	for _, name := range set.order {
		c, _ := set.get(name)
		ns := g.namespace()
		list, err := changereq.List(ctx, c.Dynamic, ns)
		if apierrors.IsForbidden(err) && ns == "" && c.Namespace != "" {
			// As kubectl: who may not list every namespace reads the context's.
			fmt.Fprintf(g.errOut, "not shown: change requests outside %s in context %s: RBAC\n", safetext.Visible(c.Namespace), safetext.Visible(name))
			list, err = changereq.List(ctx, c.Dynamic, c.Namespace)
		}
		switch {
		case apierrors.IsForbidden(err):
			// Partial rights are normal: said, and the others listed.
			fmt.Fprintf(g.errOut, "not shown: change requests of context %s: RBAC\n", safetext.Visible(name))
			failed = append(failed, err)
			continue
		case err != nil:
			fmt.Fprintf(g.errOut, "context %s: %s\n", safetext.Visible(name), safetext.Visible(err.Error()))
			failed = append(failed, err)
			continue
		}
		for _, cr := range list {
			all = append(all, listedRequest{context: name, cr: cr})
		}
	}
	if len(failed) == len(set.order) {
		return failed[0]
	}
	now := time.Now()
	if output == "json" {
		return writeJSON(g.out, requestsJSON(all, now))
	}
	printRequests(g, all, output == "wide", len(set.order) > 1, now)
	return nil
}

func printRequests(g *globals, all []listedRequest, wide, contexts bool, now time.Time) {
	if len(all) == 0 {
		fmt.Fprintln(g.errOut, "no change requests")
		return
	}
	tw := tabwriter.NewWriter(g.out, 0, 4, 2, ' ', 0)
	head := "NAME\tUNIT\tACTION\tREQUESTER\tREVIEWS\tSTATE\tAGE"
	if contexts {
		head = "CONTEXT\t" + head
	}
	if wide {
		head += "\tEXPIRES\tREASON\tWHY"
	}
	fmt.Fprintln(tw, head)
	v := safetext.Visible
	for _, l := range all {
		cr := l.cr
		p, why := cr.State(now)
		row := []string{v(cr.Ref()), v(string(cr.Spec.Unit.Engine) + "/" + cr.Spec.Unit.Name), v(string(cr.Spec.Action)), v(cr.Spec.Requester),
			v(cr.ReviewsText()), string(p), shortAge(now.Sub(cr.Created))}
		if contexts {
			row = append([]string{v(l.context)}, row...)
		}
		if wide {
			row = append(row, cr.Spec.ExpiresAt.Format(time.RFC3339), v(cr.Spec.Reason), v(why))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
}

func shortAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// requestJSON is one request as -o json prints it.
type requestJSON struct {
	Context   string             `json:"context"`
	Namespace string             `json:"namespace"`
	Name      string             `json:"name"`
	State     changereq.Phase    `json:"state"`
	Why       string             `json:"why"`
	Request   changereq.Spec     `json:"request"`
	Reviews   []changereq.Review `json:"reviews"`
	Created   time.Time          `json:"created"`
}

func requestsJSON(all []listedRequest, now time.Time) []requestJSON {
	out := make([]requestJSON, 0, len(all))
	for _, l := range all {
		p, why := l.cr.State(now)
		out = append(out, requestJSON{Context: l.context, Namespace: l.cr.Namespace, Name: l.cr.Name, State: p, Why: why,
			Request: l.cr.Spec, Reviews: l.cr.Reviews, Created: l.cr.Created})
	}
	return out
}
