package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

type actionOpts struct {
	reason       string
	yes          bool
	until        string
	prune        bool
	revision     string
	selfHealOnly bool
	resources    []string
}

var actionHelp = map[actions.Kind]string{
	actions.Pause:        "Pause automation: Argo CD auto-sync and self-heal off; a Pulumi Stack to preview-only",
	actions.Resume:       "Resume what a pause switched off, restoring the exact recorded state",
	actions.Sync:         "Request an Argo CD sync (refused while another operation runs or a window forbids it)",
	actions.Approve:      "Approve what waits: an Argo CD sync bound to the compared revision, a Stack's proposed commit or preview-only run",
	actions.Terminate:    "Terminate a running Argo CD sync",
	actions.Refresh:      "Ask Argo CD to compare the app again (--hard: also regenerate manifests)",
	actions.Rollback:     "Roll an Argo CD app back to a history entry (auto-sync must be paused)",
	actions.ConfirmPrune: "Confirm the prune an Argo CD sync waits for (Prune=confirm)",
	actions.Retry:        "Queue a new run of a Pulumi Stack (reconciliation request)",
}

func newActionCmds(g *globals) []*cobra.Command {
	var cmds []*cobra.Command
	for _, k := range []actions.Kind{actions.Pause, actions.Resume, actions.Sync, actions.Approve, actions.Terminate,
		actions.Refresh, actions.Rollback, actions.ConfirmPrune, actions.Retry} {
		cmds = append(cmds, newActionCmd(g, k))
	}
	return cmds
}

func newActionCmd(g *globals, kind actions.Kind) *cobra.Command {
	o := &actionOpts{}
	use := string(kind) + " <engine>/<namespace>/<name>"
	args := cobra.ExactArgs(1)
	if kind == actions.Rollback {
		use += " <history-id>"
		args = cobra.ExactArgs(2)
	}
	cmd := &cobra.Command{
		Use:     use,
		Short:   actionHelp[kind],
		Long:    actionHelp[kind] + ".\n\nThe command reads the object fresh, shows exactly what it will write, asks for\nconfirmation (--yes skips it), writes one JSON patch with preconditions,\nreads it back, records a Kubernetes Event and a line in the local audit log.",
		Example: "  driftdeck " + string(kind) + " argocd/argocd/guestbook --reason \"INC-1234: stop reverting the hotfix\"",
		Args:    args,
		RunE: func(cmd *cobra.Command, argv []string) error {
			return runAction(cmd.Context(), g, kind, o, argv)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.reason, "reason", "", "why (required except for refresh): goes into the Event and the audit log")
	f.BoolVar(&o.yes, "yes", false, "do not ask for confirmation")
	switch kind {
	case actions.Pause:
		f.StringVar(&o.until, "until", "", "pause expiry: a duration (2h) or a time (2026-12-01T08:00:00Z); shown as expired after it, nothing resumes by itself")
		f.BoolVar(&o.selfHealOnly, "self-heal-only", false, "Argo CD: switch off only self-heal, keep auto-sync")
	case actions.Sync:
		f.BoolVar(&o.prune, "prune", false, "delete resources no longer in the source")
		f.StringVar(&o.revision, "revision", "", "sync to this revision only if the app still compares against it")
		f.StringSliceVar(&o.resources, "resource", nil, "sync only these resources: group/kind/namespace/name (group empty for core), repeatable")
	case actions.Approve:
		f.StringVar(&o.revision, "revision", "", "Argo CD: the revision you reviewed (default: the one the app compares against now)")
		f.BoolVar(&o.prune, "prune", false, "Argo CD: delete resources no longer in the source")
	case actions.Refresh:
		var hard bool
		f.BoolVar(&hard, "hard", false, "hard refresh: regenerate manifests too")
		cmd.PreRun = func(*cobra.Command, []string) {
			if hard {
				kind = actions.HardRefresh
			}
		}
	case actions.Rollback:
		f.BoolVar(&o.prune, "prune", false, "delete resources not in the rolled-back revision")
	}
	return cmd
}

func runAction(ctx context.Context, g *globals, kind actions.Kind, o *actionOpts, argv []string) error {
	if kind == actions.Pause && o.selfHealOnly {
		kind = actions.PauseSelfHeal
	}
	req := actions.Request{Kind: kind, Reason: strings.TrimSpace(o.reason), Prune: o.prune, Revision: o.revision}
	destructive := kind.Destructive()
	if req.Reason == "" && destructive {
		return usageError(fmt.Errorf("--reason is required for %s: it goes into the Event and the audit log", kind))
	}
	if destructive {
		if err := confirmable(g, o.yes, string(kind)); err != nil {
			return err
		}
	}
	if o.until != "" {
		t, err := parseUntil(o.until, time.Now())
		if err != nil {
			return usageError(err)
		}
		req.Until = t
	}
	for _, r := range o.resources {
		res, err := parseResource(r)
		if err != nil {
			return usageError(err)
		}
		req.Resources = append(req.Resources, res)
	}
	if kind == actions.Rollback {
		id, err := strconv.ParseInt(argv[1], 10, 64)
		if err != nil {
			return usageError(fmt.Errorf("history id %q: want a number (see the History tab or `kubectl get app -o yaml` status.history[].id)", argv[1]))
		}
		req.HistoryID = id
	}
	set, k, err := connectUnit(ctx, g, argv[0])
	if err != nil {
		return err
	}
	req.Key = k
	exec, err := newExecutor(g, set)
	if err != nil {
		return err
	}
	plan, err := exec.Plan(ctx, req)
	if err != nil {
		return err
	}
	printPlan(g.errOut, plan)
	if destructive && !o.yes {
		if err := confirm(g, "Proceed?"); err != nil {
			return err
		}
	}
	res, err := exec.Execute(ctx, req)
	if err != nil {
		return err
	}
	return printResult(g, res)
}

func newExecutor(g *globals, set *clusterSet) (*actions.Executor, error) {
	path, err := audit.DefaultPath()
	if err != nil {
		return nil, err
	}
	log, err := audit.Open(path)
	if err != nil {
		return nil, err
	}
	return &actions.Executor{Cluster: set.get, Audit: log, ReadOnly: g.readOnly, DryRun: g.dryRun, Settle: 3 * time.Second}, nil
}

func parseResource(s string) (actions.Resource, error) {
	p := strings.Split(s, "/")
	if len(p) != 4 || p[1] == "" || p[3] == "" {
		return actions.Resource{}, fmt.Errorf("--resource %q: want group/kind/namespace/name, e.g. apps/Deployment/web/api or /ConfigMap/web/settings", s)
	}
	return actions.Resource{Group: p[0], Kind: p[1], Namespace: p[2], Name: p[3]}, nil
}

// parseUntil reads a pause expiry: a duration from now or an RFC 3339 time.
func parseUntil(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("--until %q is not in the future", s)
		}
		return now.Add(d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("--until %q: want a duration like 2h or a time like 2026-12-01T08:00:00Z", s)
	}
	if !t.After(now) {
		return time.Time{}, fmt.Errorf("--until %s is in the past", s)
	}
	return t, nil
}

// printPlan shows exactly what will be written; its values come from the
// cluster and are shown escaped.
func printPlan(w io.Writer, p *actions.Plan) {
	fmt.Fprintf(w, "%s\n", safetext.Visible(p.Summary))
	fmt.Fprintf(w, "Will write (JSON patch on resourceVersion %s):\n", safetext.Visible(p.ResourceVersion))
	for _, c := range p.Changes {
		fmt.Fprintf(w, "  %s\n", safetext.Visible(c))
	}
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "warning: %s\n", safetext.Visible(warn))
	}
}

func printResult(g *globals, res *actions.Result) error {
	prefix := ""
	if res.DryRun {
		prefix = "dry run (nothing persisted): "
	}
	fmt.Fprintf(g.out, "%sdone: %s (by %s, resourceVersion %s)\n", prefix,
		safetext.Visible(res.Plan.Summary), safetext.Visible(res.Actor), safetext.Visible(res.ResourceVersion))
	if res.Token != "" && res.Plan.Request.Kind == actions.Retry {
		fmt.Fprintf(g.out, "request %s queued: handled when the Stack's status.lastUpdate.reconcileRequest shows it\n", res.Token)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(g.errOut, "warning: %s\n", safetext.Visible(w))
	}
	if !res.Verified {
		return &exitError{code: exitFailed, err: errors.New("the write is not in effect (see warnings)")}
	}
	return nil
}

// keysOf lists unit keys, for bulk commands.
func keysOf(us []*model.Unit) []model.Key {
	out := make([]model.Key, len(us))
	for i, u := range us {
		out[i] = u.Key
	}
	return out
}
