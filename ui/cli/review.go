package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootreq"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

func newReviewCmd(g *globals) *cobra.Command {
	var approve, reject, yes bool
	var reason string
	cmd := &cobra.Command{
		Use:   "review [<context>:]<namespace>/<name> --approve|--reject --reason R",
		Short: "Approve or reject another person's change request, after reading its stored write",
		Long: `Shows the change request's stored write whole (the JSON patch the agent will
send, byte for byte, with its preconditions and digest), asks, and records
your review. The API server refuses a review of your own request, a second
review of yours, and any review of a closed request. A request that is
stale, expired or otherwise closed exits 6.`,
		Example: `  driftdeck review team-a/pause-web-x7k2q --approve --reason "matches INC-7's plan"`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if approve == reject {
				return usageError(errors.New("say --approve or --reject"))
			}
			decision := changereq.Approve
			if reject {
				decision = changereq.Reject
			}
			return runReview(cmd.Context(), g, argv[0], decision, reason, yes)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&approve, "approve", false, "approve the stored write")
	f.BoolVar(&reject, "reject", false, "reject it")
	f.StringVar(&reason, "reason", "", "why (required): the requester and the audit read it")
	f.BoolVar(&yes, "yes", false, "do not ask for confirmation (needed without a terminal)")
	return cmd
}

// runReview shows a request's stored write, asks, and adds the review.
func runReview(ctx context.Context, g *globals, ref, decision, reason string, yes bool) error {
	if strings.TrimSpace(reason) == "" {
		return usageError(errors.New("--reason is required"))
	}
	if err := confirmable(g, yes, decision); err != nil {
		return err
	}
	if g.readOnly {
		return actions.ErrReadOnly
	}
	set, err := connectClusters(ctx, g)
	if err != nil {
		return err
	}
	context, namespace, name, err := requestRef(set, ref)
	if err != nil {
		return err
	}
	c, _ := set.get(context)
	if err := mayRequest(ctx, c, namespace, "patch"); err != nil {
		return err
	}
	cr, err := changereq.Get(ctx, c.Dynamic, namespace, name)
	if err != nil {
		return err
	}
	now := time.Now()
	if p, why := cr.State(now); p != changereq.Pending && p != changereq.Approved {
		return &changereq.ErrClosed{Phase: p, Why: why}
	}
	printStoredRequest(g.errOut, cr, now)
	if mustAsk(g, yes) {
		if err := confirm(g, capitalize(decision)+" "+cr.Ref()+"?"); err != nil {
			return err
		}
	}
	id, err := c.Access.Identity(ctx)
	if err != nil {
		return err
	}
	if g.dryRun {
		fmt.Fprintf(g.out, "DRY RUN: no review written\n")
		return nil
	}
	got, err := changereq.AddReview(ctx, c.Dynamic, cr, changereq.Review{User: id, Decision: decision, Reason: reason}, now)
	if err != nil {
		return err
	}
	p, why := got.State(now)
	fmt.Fprintf(g.out, "%s: %s in context %s is %s (%s)\n", changereq.PastTense(decision), safetext.Visible(got.Ref()), safetext.Visible(context),
		strings.ToLower(string(p)), safetext.Visible(why))
	return nil
}

// requestRef reads [<context>:]<namespace>/<name>.
func requestRef(set *clusterSet, ref string) (context, namespace, name string, err error) {
	rest := ref
	if i := strings.Index(ref, ":"); i >= 0 {
		context, rest = ref[:i], ref[i+1:]
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", "", "", usageError(fmt.Errorf("change request %q: want <namespace>/<name>, as `driftdeck requests` lists them", ref))
	}
	switch {
	case context == "" && len(set.order) != 1:
		return "", "", "", usageError(fmt.Errorf("change request %q: several contexts are selected (%s): name one, as <context>:%s", ref, strings.Join(set.order, ", "), ref))
	case context == "":
		context = set.order[0]
	}
	if _, ok := set.get(context); !ok {
		return "", "", "", usageError(fmt.Errorf("change request %q: context %q is not selected (have: %s)", ref, context, strings.Join(set.order, ", ")))
	}
	return context, parts[0], parts[1], nil
}

// printStoredRequest shows a request and its stored write whole: what the
// agent will send, byte for byte.
func printStoredRequest(w io.Writer, cr *changereq.ChangeRequest, now time.Time) {
	s := cr.Spec
	p, why := cr.State(now)
	v := safetext.Visible
	fmt.Fprintf(w, "change request %s: %s %s\n", v(cr.Ref()), v(string(s.Action)), v(cr.Key("").Ref()))
	fmt.Fprintf(w, "  asked by %s: %s\n", v(s.Requester), v(s.Reason))
	fmt.Fprintf(w, "  state    %s (%s); open until %s\n", p, v(why), s.ExpiresAt.Format(time.RFC3339))
	for _, r := range cr.Reviews {
		fmt.Fprintf(w, "  review   %s %s: %s\n", v(r.User), v(r.Decision), v(r.Reason))
	}
	pl := s.Plan
	fmt.Fprintf(w, "%s\n", v(pl.Summary))
	if s.Unit.Engine == model.EngineRoot {
		for _, l := range rootreq.Lines(pl) {
			fmt.Fprintf(w, "%s\n", v(l))
		}
		return
	}
	fmt.Fprintf(w, "Will write (JSON patch on resourceVersion %s, planned %s as %s):\n", v(pl.ResourceVersion), pl.At.UTC().Format(time.RFC3339), v(pl.Actor))
	for _, c := range pl.Changes {
		fmt.Fprintf(w, "  %s\n", v(c))
	}
	for _, o := range pl.Also {
		fmt.Fprintf(w, "And %s (%s the unit's patch), on resourceVersion %s:\n", v(o.Object), v(o.When), v(o.ResourceVersion))
		for _, c := range o.Changes {
			fmt.Fprintf(w, "  %s\n", v(c))
		}
		fmt.Fprintf(w, "  patch %s\n", v(o.Patch))
	}
	for _, warn := range pl.Warnings {
		fmt.Fprintf(w, "warning: %s\n", v(warn))
	}
	fmt.Fprintf(w, "patch  %s\n", v(pl.Patch))
	fmt.Fprintf(w, "digest %s\n", v(pl.Digest))
}
