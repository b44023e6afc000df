package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/diff"
	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/rootreq"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// runRootRequest plans a root module with the user's tofu, shows the plan,
// and keeps it in a new change request in the context's namespace for root
// modules' requests: once approved, the agent plans again and applies its
// own plan only when it reads the same (ADR 0044).
func runRootRequest(ctx context.Context, g *globals, kind actions.Kind, reason string, ro *requestOpts, ref string) error {
	k, err := parseRootRef(ref)
	if err != nil {
		return err
	}
	if kind != actions.Approve {
		return usageError(fmt.Errorf("%s: a root module's request asks to apply its plan: driftdeck request approve %s", ref, k.Ref()))
	}
	if g.readOnly {
		return actions.ErrReadOnly
	}
	t, err := findRoot(ctx, g, k)
	if err != nil {
		return err
	}
	set, err := connectClusters(ctx, g)
	if err != nil {
		return err
	}
	if len(set.order) != 1 {
		return usageError(fmt.Errorf("a root module's request is kept in one cluster, where the agent applies it: several contexts are selected (%s): name one with --context", strings.Join(set.order, ", ")))
	}
	context := set.order[0]
	c, _ := set.get(context)
	if err := mayRequest(ctx, c, ro.namespace, "create"); err != nil {
		return err
	}
	// The options the agent plans with: the same plan reads the same.
	saved, err := t.tofu.Plan(ctx, t.root, rootmod.LocalIdentity(), 0, diff.Options{})
	if err != nil {
		return rootRunError(err)
	}
	fmt.Fprintf(g.errOut, "# %s, plan %s (against state serial %d): the request asks the agent to apply this plan\n", k.Ref(), saved.ID, saved.Serial)
	if err := writeTFPlan(g, saved.Plan); err != nil {
		return err
	}
	id, err := c.Access.Identity(ctx)
	if err != nil {
		return err
	}
	cr, err := rootreq.Ask(ctx, c.Dynamic, ro.namespace, t.root, saved, reason, changereq.Ask{Requester: id, Approvals: ro.approvals, For: ro.expires, DryRun: g.dryRun}, time.Now())
	if err != nil {
		return err
	}
	if g.dryRun {
		fmt.Fprintf(g.out, "DRY RUN: the API server accepted the request; nothing was stored\n")
		return nil
	}
	printRequested(g, cr, context, id, saved.Summary)
	return nil
}

// printRequested says what was asked, by whom, and how to review it.
func printRequested(g *globals, cr *changereq.ChangeRequest, context, requester, summary string) {
	fmt.Fprintf(g.out, "requested: %s in context %s: %s\n", safetext.Visible(cr.Ref()), safetext.Visible(context), safetext.Visible(summary))
	fmt.Fprintf(g.out, "needs %d approval(s) by someone other than %s, by %s; digest %s\n",
		cr.Spec.ApprovalsRequired, safetext.Visible(requester), cr.Spec.ExpiresAt.Format(time.RFC3339), cr.Spec.Plan.Digest)
	fmt.Fprintf(g.out, "to review: driftdeck --context %s review %s --approve --reason <why>\n", safetext.Visible(context), safetext.Visible(cr.Ref()))
}
