package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/changereq"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/rootreq"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

const requestHelp = `A change request: you ask for a write, someone else approves it, and the
driftdeck agent applies exactly the write you were shown, or nothing.

The command reads the unit fresh and shows exactly what would be written, as
the action itself does, then stores that write (the JSON patch, its
preconditions and the version of the object) in a ChangeRequest in the
unit's namespace, and prints its name. The API server records you as the
requester and refuses your own approval (deploy/change-requests/). Once
approved by another person (--approvals of them), the agent sends the stored
patch as is; if the unit changed since in what the write reads or writes,
nothing is written and the request reads Stale.

A root module (root/<workspace>/<name>) is asked for with approve: the
command runs your tofu plan and keeps that plan as shown (sensitive values
masked) in a request in --request-namespace of the selected context. Once
approved, the agent that reads the module plans it again with its own
credentials and applies its own plan file only when it reads as yours;
otherwise nothing is applied and the request reads Stale.`

// requestOpts are what a request adds to its action's options.
type requestOpts struct {
	approvals int
	expires   time.Duration
	// namespace keeps a root module's request (one in a cluster is kept
	// in the unit's).
	namespace string
}

func newRequestCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "request <action> <engine>/<namespace>/<name> --reason R",
		Short: "Ask for a write that another person approves and the agent applies",
		Long:  requestHelp,
		Example: `  driftdeck request pause argocd/team-a/web --until 2h --reason "INC-7: hold the rollout"
  driftdeck request sync argocd/team-a/web --prune --reason "release 1.4"
  driftdeck --root ./infra/network request approve root/default/network --reason "CHG-12: widen the subnet"
  driftdeck request cancel team-a/pause-web-x7k2q --reason "not needed any more"`,
		Args: cobra.NoArgs,
	}
	for _, s := range commandKinds() {
		if actions.Requestable(s.Kind) == nil {
			cmd.AddCommand(newRequestActionCmd(g, s))
		}
	}
	cmd.AddCommand(newRequestCancelCmd(g), notRequestable("unlock", "unlock writes the Stack's state backend, not the cluster: it cannot be requested"),
		notRequestable("preview", "preview --approve runs pulumi up on this machine: it cannot be requested (a change request holds a Kubernetes write that the agent applies)"))
	return cmd
}

// notRequestable is a hidden subcommand that says why an action cannot be
// requested, instead of "unknown command".
func notRequestable(name, why string) *cobra.Command {
	return &cobra.Command{Use: name, Hidden: true, DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error { return usageError(fmt.Errorf("%s", why)) }}
}

func newRequestActionCmd(g *globals, spec actions.Spec) *cobra.Command {
	o, ro := &actionOpts{}, &requestOpts{}
	kind := spec.Kind
	use := string(kind) + " <engine>/<namespace>/<name>"
	args := cobra.ExactArgs(1)
	if kind == actions.Rollback {
		use += " <history-id>"
		args = cobra.ExactArgs(2)
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: "Ask for: " + spec.Help,
		Long:  "Ask for: " + spec.Help + ".\n\n" + requestHelp,
		Args:  args,
		RunE: func(cmd *cobra.Command, argv []string) error {
			return runRequest(cmd.Context(), g, kind, o, ro, argv)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.reason, "reason", "", "why (required): the reviewers read it, and it goes into the Event and the audit log")
	f.IntVar(&ro.approvals, "approvals", 1, "how many other people must approve")
	f.DurationVar(&ro.expires, "expires", changereq.DefaultOpen, "how long the request stays open: not applied after it")
	if kind == actions.Approve {
		f.StringVar(&ro.namespace, "request-namespace", rootreq.DefaultNamespace, "where a root module's request is kept (the agent's namespace, where the request roles are bound)")
	}
	o.addFlags(f, kind)
	return cmd
}

// runRequest plans the action as it would run, shows the plan, and stores
// it in a new change request.
func runRequest(ctx context.Context, g *globals, kind actions.Kind, o *actionOpts, ro *requestOpts, argv []string) error {
	switch {
	case kind == actions.Pause && o.selfHealOnly:
		kind = actions.PauseSelfHeal
	case kind == actions.Refresh && o.hard:
		kind = actions.HardRefresh
	}
	if strings.TrimSpace(o.reason) == "" {
		return usageError(fmt.Errorf("--reason is required: the reviewers read it"))
	}
	if ro.approvals < 1 || ro.expires <= 0 {
		return usageError(fmt.Errorf("--approvals must be at least 1 and --expires positive (got %d, %s)", ro.approvals, ro.expires))
	}
	if isRootRef(argv[0]) {
		return runRootRequest(ctx, g, kind, o.reason, ro, argv[0])
	}
	req, err := o.request(kind)
	if err != nil {
		return err
	}
	req.Single = true
	if kind == actions.Rollback {
		if req.HistoryID, err = strconv.ParseInt(argv[1], 10, 64); err != nil {
			return usageError(fmt.Errorf("history id %q: want a number", argv[1]))
		}
	}
	if g.readOnly {
		return actions.ErrReadOnly
	}
	set, k, err := connectUnit(ctx, g, argv[0])
	if err != nil {
		return err
	}
	req.Key = k
	c, _ := set.get(k.Context)
	if err := mayRequest(ctx, c, k.Namespace, "create"); err != nil {
		return err
	}
	// The Kubernetes route: the agent applies the request there.
	exec, err := newExecutor(g, set.get, nil)
	if err != nil {
		return err
	}
	plan, err := exec.Plan(ctx, req)
	if err != nil {
		return err
	}
	printPlan(g.errOut, plan, "The request asks to write")
	id, err := c.Access.Identity(ctx)
	if err != nil {
		return err
	}
	cr, err := changereq.Create(ctx, c.Dynamic, plan, changereq.Ask{Requester: id, Approvals: ro.approvals, For: ro.expires, DryRun: g.dryRun}, time.Now())
	if err != nil {
		return err
	}
	if g.dryRun {
		fmt.Fprintf(g.out, "DRY RUN: the API server accepted the request; nothing was stored\n")
		return nil
	}
	printRequested(g, cr, k.Context, id, plan.Summary)
	return nil
}

// mayRequest refuses, saying why, an identity that may not verb change
// requests in the namespace.
func mayRequest(ctx context.Context, c *kube.Cluster, namespace, verb string) error {
	v, err := c.Access.Can(ctx, verb, changereq.GVR, namespace, "")
	if err != nil {
		return err
	}
	if !v.Allowed {
		return &actions.Refusal{Reason: v.Reason, Permission: true}
	}
	return nil
}

func newRequestCancelCmd(g *globals) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "cancel [<context>:]<namespace>/<name> --reason R",
		Short: "Withdraw your own change request",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return runReview(cmd.Context(), g, argv[0], changereq.Cancel, reason, true)
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (required)")
	return cmd
}

// suggestRequest says, after a write refused for the user's rights, how to
// ask for it instead, where they may.
func suggestRequest(ctx context.Context, g *globals, set *clusterSet, k model.Key, kind actions.Kind, err error) {
	var r *actions.Refusal
	if !errors.As(err, &r) || !r.Permission || actions.Requestable(kind) != nil {
		return
	}
	if _, viaArgo := set.argoAPI(k.Context); viaArgo && k.Engine == model.EngineArgoCD {
		return
	}
	c, _ := set.get(k.Context)
	if mayRequest(ctx, c, k.Namespace, "create") != nil {
		return
	}
	fmt.Fprintf(g.errOut, "you may ask for it instead (another person approves, the agent applies it): driftdeck --context %s request %s %s --reason <why>\n",
		safetext.Visible(k.Context), kind, safetext.Visible(k.Ref()))
}
