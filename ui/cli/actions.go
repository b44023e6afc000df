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
	"github.com/spf13/pflag"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/undo"
)

type actionOpts struct {
	reason       string
	yes          bool
	until        string
	prune        bool
	revision     string
	selfHealOnly bool
	autoSync     bool
	selfHeal     bool
	hard         bool
	withSource   bool
	lockID       string
	resources    []string
	sync         syncFlags
	sel          selection
}

// syncFlags are the choices of an Argo CD sync beyond prune.
type syncFlags struct{ force, dryRun, outOfSyncOnly bool }

// commandKinds are the action kinds with an action command: the others are
// a flag of another's (pause --self-heal-only, refresh --hard) or write a
// state backend (unlock, a command of its own).
func commandKinds() []actions.Spec {
	var out []actions.Spec
	for _, s := range actions.Specs() {
		if s.FlagOf == "" && !s.StateWrite {
			out = append(out, s)
		}
	}
	return out
}

func newActionCmds(g *globals) []*cobra.Command {
	var cmds []*cobra.Command
	for _, s := range commandKinds() {
		cmds = append(cmds, newActionCmd(g, s))
	}
	return cmds
}

const confirmHelp = `The command reads the object fresh and shows exactly what it will write. It
asks for confirmation on the terminal (--yes skips it; without a terminal
--yes is required) and writes only while the object is still at the version
the confirmed plan was made from: if it changed, nothing is written, the new
plan is shown and the command exits 6.`

const noConfirmHelp = `The command asks nothing: it reads the object fresh, writes at once and
prints exactly what it wrote (--yes is accepted for scripts and changes
nothing).`

const patchHelp = `Each write is one JSON patch with preconditions, checked on the object the
server returns, recorded as a Kubernetes Event and a line in the local audit
log.`

const stackTerminateHelp = `On a Stack it aborts a hung update as the Pulumi operator's guide does
("purge the pod and retry"): once the update has run for 10 minutes and its
workspace pod has written no log line for 10 minutes, the pod is deleted
(bound to its uid) and a new run is requested. It is refused while the pod
still writes, also when the pod starts writing again after the plan was
shown, and for an identity that may not delete the pod. The update stops
where it was; on a self-managed backend its lock may stay held (unlock).`

const bulkHelp = `Several units at once: name them, or select them as kubectl does, with
-l (labels), -n (namespace), --engine, --state, or --all. Each unit is then
reported as applied, skipped (with why: nothing to do, not possible for its
engine) or failed; the command exits 1 when one failed.`

func newActionCmd(g *globals, spec actions.Spec) *cobra.Command {
	o := &actionOpts{}
	kind := spec.Kind
	unit := exampleUnit(spec)
	use := string(kind) + " <engine>/<namespace>/<name>"
	args := cobra.ExactArgs(1)
	long := capitalize(spec.Help) + ".\n\n" + noConfirmHelp + "\n" + patchHelp
	if spec.Destructive {
		long = capitalize(spec.Help) + ".\n\n" + confirmHelp + "\n" + patchHelp
	}
	example := "  driftdeck " + string(kind) + " " + unit + exampleReason(spec)
	switch {
	case kind == actions.Rollback:
		use += " <history-id>"
		args = cobra.ExactArgs(2)
		example = "  driftdeck rollback " + unit + " 41 --reason \"bad release\""
	case spec.Bulkable:
		use = string(kind) + " (<engine>/<namespace>/<name> ... | -l <selector> | -n <namespace> | --engine <engine> | --all)"
		args = nil
		long += "\n\n" + bulkHelp
		example += "\n  driftdeck " + string(kind) + " -n team-payments --engine argocd" + exampleReason(spec)
	}
	if kind == actions.Terminate {
		long += "\n\n" + stackTerminateHelp
	}
	if kind == actions.Reset {
		long += "\n\n" + demoResetHelp
		example += "\n  driftdeck --demo reset   # no unit: the demo starts afresh"
	}
	cmd := &cobra.Command{
		Use:     use,
		Short:   capitalize(spec.Help),
		Long:    long,
		Example: example,
		Args:    args,
		RunE: func(cmd *cobra.Command, argv []string) error {
			if o.hard {
				kind = actions.HardRefresh
			}
			if kind == actions.Reset && g.demo && len(argv) == 0 && !o.sel.any() {
				return resetDemo(g)
			}
			if spec.Bulkable && (len(argv) != 1 || o.sel.any()) {
				return runBulk(cmd.Context(), g, kind, o, argv)
			}
			return runAction(cmd.Context(), g, kind, o, argv)
		},
	}
	f := cmd.Flags()
	if spec.Destructive {
		f.StringVar(&o.reason, "reason", "", "why (required): goes into the Event and the audit log")
		f.BoolVar(&o.yes, "yes", false, "do not ask for confirmation (needed without a terminal)")
	} else {
		f.StringVar(&o.reason, "reason", "", "why (optional): goes into the Event and the audit log")
		f.BoolVar(&o.yes, "yes", false, "accepted for scripts; "+string(kind)+" never asks")
	}
	if spec.Bulkable {
		o.sel.addFlags(f)
	}
	o.addFlags(f, kind)
	return cmd
}

// addFlags adds the options of an action of this kind (its command's and
// its request's).
func (o *actionOpts) addFlags(f *pflag.FlagSet, kind actions.Kind) {
	switch kind {
	case actions.Pause:
		f.StringVar(&o.until, "until", "", "pause expiry: a duration (2h) or a time (2026-12-01T08:00:00Z); shown as expired after it, nothing resumes by itself")
		f.BoolVar(&o.selfHealOnly, "self-heal-only", false, "Argo CD: switch off only self-heal, keep auto-sync")
	case actions.Resume:
		f.BoolVar(&o.autoSync, "auto-sync", false, "Argo CD, when driftdeck did not pause it (auto-sync turned off elsewhere): enable auto-sync with the policy chosen by --self-heal and --prune")
		f.BoolVar(&o.selfHeal, "self-heal", false, "with --auto-sync: revert live drift too (automated.selfHeal)")
		f.BoolVar(&o.prune, "prune", false, "with --auto-sync: delete resources no longer in the source (automated.prune)")
	case actions.Sync:
		f.BoolVar(&o.prune, "prune", false, "delete resources no longer in the source")
		f.StringVar(&o.revision, "revision", "", "sync to this revision only if the app still compares against it")
		f.StringSliceVar(&o.resources, "resource", nil, "sync only these resources: group/kind/namespace/name, or kind/namespace/name for a core kind (as resources prints them), repeatable")
		f.BoolVar(&o.sync.force, "force", false, "replace what cannot be patched (syncStrategy.hook.force: delete and re-create)")
		f.BoolVar(&o.sync.outOfSyncOnly, "apply-out-of-sync-only", false, "apply only the resources out of sync (adds syncOptions ApplyOutOfSyncOnly=true)")
		f.BoolVar(&o.sync.dryRun, "sync-dry-run", false, "have Argo CD run the sync as a dry run (operation.sync.dryRun): the operation is written, nothing applied; --dry-run writes nothing at all")
	case actions.Approve:
		f.StringVar(&o.revision, "revision", "", "the revision you reviewed (Argo CD; default: the one the app compares against now) or the full Terraform plan id (default: the pending plan shown)")
		f.BoolVar(&o.prune, "prune", false, "Argo CD: delete resources no longer in the source")
	case actions.Refresh:
		f.BoolVar(&o.hard, "hard", false, "Argo CD hard refresh: regenerate manifests too")
		f.BoolVar(&o.withSource, "with-source", false, "Flux and Terraform: request the unit's source (GitRepository, OCIRepository, HelmChart ...) first")
	case actions.ForceUnlock:
		f.StringVar(&o.lockID, "lock", "", "the state lock id you saw (status.lock.pending): refused when another lock is held")
	case actions.Rollback:
		f.BoolVar(&o.prune, "prune", false, "delete resources not in the rolled-back revision")
	}
}

// exampleUnit names a unit of the first engine that knows the action.
func exampleUnit(s actions.Spec) string { return model.InfoOf(s.Engines()[0]).Example }

func exampleReason(s actions.Spec) string {
	if !s.Destructive {
		return ""
	}
	return " --reason \"INC-1234: hotfix in place\""
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// runAction does one action on one unit. A destructive one asked on the
// terminal is the plan printed, sent as it is (Executor.Send); with --yes,
// or for a refresh, it is planned fresh and written once, and what was
// written is printed.
func runAction(ctx context.Context, g *globals, kind actions.Kind, o *actionOpts, argv []string) error {
	if kind == actions.Pause && o.selfHealOnly {
		kind = actions.PauseSelfHeal
	}
	if len(argv) == 0 {
		return usageError(fmt.Errorf("name a unit (<engine>/<namespace>/<name>) to %s", kind))
	}
	if isRootRef(argv[0]) {
		return runRootAction(ctx, g, kind, o, argv[0])
	}
	req, err := o.request(kind)
	if err != nil {
		return err
	}
	req.Single = true
	ask := actions.Destructive(kind) && mustAsk(g, o.yes)
	if ask {
		if err := confirmable(g, o.yes, string(kind)); err != nil {
			return err
		}
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
	if err := lookUnit(ctx, set, k); err != nil {
		return err
	}
	req.Key = k
	exec, err := newExecutor(g, set.get, set.argoAPI)
	if err != nil {
		return err
	}
	fc := &forecaster{make: func() (undo.Differ, error) { return forecastSource(ctx, g, set.get, set.argoAPI) }}
	res, err := writeAsked(ctx, g, exec, fc, req, ask)
	if why := satisfiedBy(err); why != "" {
		fmt.Fprintf(g.out, "unchanged: %s\n", safetext.Visible(why))
		return nil
	}
	var changed *actions.PlanChanged
	if errors.As(err, &changed) {
		printPlanChanged(g.errOut, changed)
		return err
	}
	if err != nil {
		suggestRequest(ctx, g, set, k, kind, err)
		return err
	}
	if !ask {
		verb := "Wrote"
		if g.dryRun {
			verb = "Would write (dry run, nothing persisted)"
		}
		printPlan(g.errOut, res.Plan, verb)
		if g.dryRun {
			printForecast(ctx, g, fc, res.Plan)
		}
	}
	return printResult(g, res, exec.Settled(ctx, res))
}

// writeAsked writes the request: when asked, the plan printed (a resume's
// with what the controller will change once back) and confirmed, as it
// is; else planned and written at once.
func writeAsked(ctx context.Context, g *globals, exec *actions.Executor, fc *forecaster, req actions.Request, ask bool) (*actions.Result, error) {
	if !ask {
		return exec.Execute(ctx, req)
	}
	plan, err := exec.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	printPlan(g.errOut, plan, "Will write")
	printForecast(ctx, g, fc, plan)
	if err := confirm(g, "Proceed?"); err != nil {
		return nil, err
	}
	return exec.Send(ctx, plan)
}

// satisfiedBy is the reason of a refusal because what was asked is already
// the case (a refresh already requested): done, as kubectl annotate
// --overwrite with the same value is, not refused.
func satisfiedBy(err error) string {
	var r *actions.Refusal
	if errors.As(err, &r) && r.Satisfied {
		return r.Reason
	}
	return ""
}

// request builds the request the flags ask for (the unit comes later).
func (o *actionOpts) request(kind actions.Kind) (actions.Request, error) {
	req := actions.Request{Kind: kind, Reason: strings.TrimSpace(o.reason), Prune: o.prune, Revision: o.revision, WithSource: o.withSource, LockID: o.lockID,
		SyncChoices: actions.SyncChoices{Force: o.sync.force, SyncDryRun: o.sync.dryRun, ApplyOutOfSyncOnly: o.sync.outOfSyncOnly}}
	if req.Reason == "" && actions.Destructive(kind) {
		return req, usageError(fmt.Errorf("--reason is required for %s: it goes into the Event and the audit log", kind))
	}
	if o.autoSync {
		req.AutoSync = &actions.AutoSyncPolicy{SelfHeal: o.selfHeal, Prune: o.prune}
	} else if kind == actions.Resume && (o.selfHeal || o.prune) {
		return req, usageError(fmt.Errorf("--self-heal and --prune choose the policy --auto-sync enables: add --auto-sync"))
	}
	if o.until != "" {
		t, err := parseUntil(o.until, time.Now())
		if err != nil {
			return req, usageError(err)
		}
		req.Until = t
	}
	for _, r := range o.resources {
		res, err := parseResource(r)
		if err != nil {
			return req, usageError(err)
		}
		req.Resources = append(req.Resources, res)
	}
	return req, nil
}

// newExecutor writes to the clusters, and to Argo CD through argo's API
// server where that is a context's route (nil: none).
func newExecutor(g *globals, clusters func(string) (*kube.Cluster, bool), argo func(string) (*argoapi.Client, bool)) (*actions.Executor, error) {
	log, err := openAudit()
	if err != nil {
		return nil, err
	}
	return &actions.Executor{Cluster: clusters, ArgoAPI: argo, Audit: log, ReadOnly: g.readOnly, DryRun: g.dryRun, Settle: 3 * time.Second, Origin: g.origin()}, nil
}

// parseResource reads group/kind/namespace/name, or kind/namespace/name for
// a core kind (as resources prints it; the old /kind/... form still works).
func parseResource(s string) (actions.Resource, error) {
	p := strings.Split(s, "/")
	if len(p) == 3 {
		p = append([]string{""}, p...)
	}
	if len(p) != 4 || p[1] == "" || p[3] == "" {
		return actions.Resource{}, fmt.Errorf("--resource %q: want group/kind/namespace/name, e.g. apps/Deployment/web/api, or kind/namespace/name for a core kind, e.g. ConfigMap/web/settings", s)
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

// printPlan shows exactly what will be (or was) written; its values come
// from the cluster and are shown escaped.
func printPlan(w io.Writer, p *actions.Plan, verb string) {
	fmt.Fprintf(w, "%s\n", safetext.Visible(p.Summary))
	fmt.Fprintf(w, "%s (JSON patch on resourceVersion %s):\n", verb, safetext.Visible(p.ResourceVersion))
	for _, c := range p.Changes {
		fmt.Fprintf(w, "  %s\n", safetext.Visible(c))
	}
	for _, o := range p.Also {
		fmt.Fprintf(w, "%s\n", safetext.Visible(o.Heading()))
		for _, c := range o.Changes {
			fmt.Fprintf(w, "  %s\n", safetext.Visible(c))
		}
	}
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "warning: %s\n", safetext.Visible(warn))
	}
}

// printPlanChanged says that the object moved on after the plan was
// confirmed, what differs, and the plan as it would be now.
func printPlanChanged(w io.Writer, c *actions.PlanChanged) {
	fmt.Fprintf(w, "PLAN CHANGED: %s changed after you confirmed the plan; nothing was written.\n", safetext.Visible(c.Plan.Request.Key.Ref()))
	for _, d := range c.Changes {
		fmt.Fprintf(w, "  - %s\n", safetext.Visible(d))
	}
	fmt.Fprintln(w, "The plan now, if you run the command again and confirm it:")
	printPlan(w, c.Plan, "Would write")
}

// printResult reports a write and what its settle check found (an owner
// that reverted it): such a write, or one not in effect, exits 1.
func printResult(g *globals, res *actions.Result, settled []string) error {
	prefix := ""
	if res.DryRun {
		prefix = "DRY RUN (nothing persisted): "
	}
	fmt.Fprintf(g.out, "%sdone: %s (by %s, resourceVersion %s)\n", prefix,
		safetext.Visible(res.Plan.Summary), safetext.Visible(res.Actor), safetext.Visible(res.ResourceVersion))
	switch k := res.Plan.Request.Key.Engine; {
	case res.Token == "" || (k == model.EnginePulumi && res.Plan.Request.Kind != actions.Retry):
	case k == model.EnginePulumi:
		fmt.Fprintf(g.out, "request %s queued: handled when the Stack's status.lastUpdate.reconcileRequest shows it\n", safetext.Visible(res.Token))
	case k != model.EngineArgoCD:
		fmt.Fprintf(g.out, "request %s queued: handled when status.lastHandledReconcileAt shows it\n", safetext.Visible(res.Token))
	}
	for _, w := range append(append([]string(nil), res.Warnings...), settled...) {
		fmt.Fprintf(g.errOut, "warning: %s\n", safetext.Visible(w))
	}
	if !res.Verified || len(settled) > 0 {
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
