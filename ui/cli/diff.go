package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/fluxdiff"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
	"github.com/driftdeck/driftdeck/backend/tfplan"
)

// unitDiffer answers "what would change" for every engine that has a diff:
// Argo CD Applications, Flux Kustomizations (a local build dry-run against
// the cluster) and Terraforms (the readable plan tofu-controller stored,
// bound to its plan id through Result.SyncRevision).
type unitDiffer struct {
	argo *argodiff.Differ
	// argoOf is the differ of a context whose Applications go through an
	// Argo CD API server (--argocd-context names several): its diffs come
	// from that server.
	argoOf func(context string) (*argodiff.Differ, bool)
	flux   *fluxdiff.Differ
	plans  *tfplan.Reader
	// roots shows a root module's newest saved plan; nil where none is
	// read.
	roots *rootService
}

func (d *unitDiffer) Diff(ctx context.Context, k model.Key) (*argodiff.Result, error) {
	res, err := d.diff(ctx, k)
	if err == nil && res.Report != nil {
		res.Warnings = append(res.Warnings, res.Report.Warnings()...)
	}
	return res, err
}

func (d *unitDiffer) diff(ctx context.Context, k model.Key) (*argodiff.Result, error) {
	switch k.Engine {
	case model.EngineKustomization, model.EngineHelmRelease:
		return d.flux.Diff(ctx, k)
	case model.EngineTerraform:
		p, err := d.plans.Read(ctx, k)
		if err != nil {
			return nil, err
		}
		return planResult(p), nil
	case model.EngineRoot:
		if d.roots == nil {
			return nil, errors.New(k.Ref() + ": no root module is read here")
		}
		saved, err := d.roots.rootDiff(k)
		if err != nil {
			return nil, err
		}
		return rootPlanResult(saved), nil
	}
	if a, ok := d.argoOf(k.Context); ok {
		return a.Diff(ctx, k)
	}
	return d.argo.Diff(ctx, k)
}

// planResult shows a plan in the diff screen: the plan id as its revision
// (and as what an approval binds to), tofu's summary first.
func planResult(p *tfplan.Plan) *argodiff.Result {
	return &argodiff.Result{
		Report: p.Report, Revision: p.ID, SyncRevision: p.ID,
		Source:   p.Format + " plan from " + p.Where,
		Warnings: append([]string{p.Summary}, p.Warnings...),
	}
}

// newDiffer picks the diff source: the Argo CD API server when one is
// configured (flags, ARGOCD_SERVER/ARGOCD_AUTH_TOKEN, or the argocd CLI's
// config), else a local render dry-run against the cluster.
func newDiffer(ctx context.Context, g *globals, clusters func(string) (*kube.Cluster, bool), argo func(string) (*argoapi.Client, bool)) (*unitDiffer, error) {
	server, err := argodiff.LoadServerConfig(g.argoFlags())
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("Argo CD server: %w", err)}
	}
	if g.portForward() || server != nil && server.Server == argodiff.PortForwardServer {
		// The port-forwarded server is the first context's own, reached
		// through its route; it diffs no other context's Applications.
		server = nil
	}
	if server != nil {
		if err := server.RenewExpired(ctx); err != nil {
			return nil, err
		}
	}
	flux := &fluxdiff.Differ{Cluster: clusters}
	if g.demo {
		// The demo answers as an Argo CD API server would, and builds its
		// Kustomizations and charts from the sources it embeds; it never
		// reaches the network, even once its control plane is gone.
		flux.Reach = func(string) error { return errors.New("the demo has ended: nothing is rendered") }
		if c, ok := clusters(demo.ContextName); ok {
			if server, err = demo.ArgoAPI(ctx, c); err != nil {
				return nil, err
			}
			if dir, reach, ok := demo.SourceCache(c); ok {
				flux.CacheDir, flux.Reach = dir, reach
			}
		}
	}
	return &unitDiffer{
		argo:   &argodiff.Differ{Cluster: clusters, Source: argodiff.NewSource(argodiff.Options{Server: server})},
		argoOf: routedDiffers(clusters, argo),
		flux:   flux,
		plans:  &tfplan.Reader{Cluster: clusters},
	}, nil
}

// routedDiffers are the differs of the contexts whose Applications go
// through an Argo CD API server, each made once, of that server.
func routedDiffers(clusters func(string) (*kube.Cluster, bool), argo func(string) (*argoapi.Client, bool)) func(string) (*argodiff.Differ, bool) {
	var mu sync.Mutex
	made := map[string]*argodiff.Differ{}
	return func(context string) (*argodiff.Differ, bool) {
		api, ok := argo(context)
		if !ok {
			return nil, false
		}
		mu.Lock()
		defer mu.Unlock()
		if d, ok := made[context]; ok {
			return d, true
		}
		d := &argodiff.Differ{Cluster: clusters, Source: argodiff.NewSource(argodiff.Options{Server: api.Config()})}
		made[context] = d
		return d, true
	}
}

func newDiffCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "diff argocd/<namespace>/<name> | kustomization/<namespace>/<name> | helmrelease/<namespace>/<name> | terraform/<namespace>/<name> | root/<workspace>/<name>",
		Short: "Print what a sync, reconcile or apply would change, as a unified diff",
		Long: `Print live against desired for every resource of the Application, Secret
values masked. With an Argo CD API server configured (--argocd-server and
--argocd-token, ARGOCD_SERVER/ARGOCD_AUTH_TOKEN, or an argocd login) it shows
what the server compares; otherwise driftdeck renders the source (plain
manifests, kustomize, or a Helm chart as the repo-server templates it; each
source of a multi-source Application) at the compared revision and dry-runs
it against the cluster.

For a Flux Kustomization it builds the kustomization as kustomize-controller
does, from a checkout of its GitRepository at the last attempted revision,
and dry-runs it against the cluster (as flux diff kustomization). For a
Flux HelmRelease it renders the chart helm-controller would upgrade to (from
its HelmRepository at the version source-controller resolved, or from its
GitRepository's path) with the HelmRelease's values (valuesFrom ConfigMaps
and Secrets, then spec.values) and compares it with the manifest of the
release it last made, as helm diff upgrade does. For a
tofu-controller Terraform it prints the readable plan the controller stored
(spec.storeReadablePlan: human or json), per resource, sensitive values
masked, with the plan id an approval must name. For a root module it prints
the plan driftdeck plan saved last.

As kubectl diff, it exits 0 when there are no differences, 1 when there are,
and never 1 for an error: a diff it cannot compute (a source it cannot fetch
or build, a dry-run the cluster rejects) exits 7, the other errors with their
codes below.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return diffFailed(runDiff(cmd.Context(), g, args[0])) },
	}
}

func runDiff(ctx context.Context, g *globals, ref string) error {
	if isRootRef(ref) {
		return runRootDiff(ctx, g, ref)
	}
	set, k, err := connectUnit(ctx, g, ref)
	if err != nil {
		return err
	}
	if model.InfoOf(k.Engine).Review != model.ReviewDiff {
		var instead string
		switch k.Engine {
		case model.EnginePulumi:
			instead = "for a Pulumi Stack use `" + g.origin().Driftdeck(k.Context, "preview", k.Ref()) + "`"
		default:
			instead = "diff the units it generates"
		}
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: diff is for Argo CD Applications, Flux Kustomizations and HelmReleases, and Terraforms; %s", ref, instead)}
	}
	d, err := newDiffer(ctx, g, set.get, set.argoAPI)
	if err != nil {
		return err
	}
	if err := lookUnit(ctx, set, k); err != nil {
		return err
	}
	if k.Engine == model.EngineTerraform {
		return printTerraformPlan(ctx, g, d.plans, k)
	}
	res, err := d.Diff(ctx, k)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.errOut, "# %s, revision %s (%s)\n", k.Ref(), safetext.Visible(res.Revision), safetext.Visible(res.Source))
	for _, w := range res.Warnings {
		fmt.Fprintf(g.errOut, "warning: %s\n", safetext.Visible(w))
	}
	out := &safeLines{w: g.out}
	if err := res.Report.WriteUnified(out, 3); err != nil {
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	r := res.Report
	fmt.Fprintf(g.errOut, "# %d modified, %d added, %d removed (%s), %d unchanged\n", r.Modified, r.Added, r.Removed, removedMeans(k.Engine), r.Unchanged)
	if r.Modified+r.Added+r.Removed > 0 {
		return &exitError{code: exitFailed, err: errDifferences}
	}
	return nil
}

// removedMeans says when a removed object goes.
func removedMeans(e model.Engine) string {
	if e == model.EngineHelmRelease {
		return "deleted by the upgrade"
	}
	return "pruned on sync"
}

// printTerraformPlan prints a Terraform's readable plan: per resource tofu's header
// and the diff of its before and after; exit 1 when it changes something.
func printTerraformPlan(ctx context.Context, g *globals, r *tfplan.Reader, k model.Key) error {
	p, err := r.Read(ctx, k)
	if err != nil {
		return err
	}
	which := "plan " + p.ID
	if p.ID == "" { // drift detection's plan has no id: it is not kept
		which = "drift detection's plan"
	}
	fmt.Fprintf(g.errOut, "# %s, %s (%s plan from %s)\n", k.Ref(), safetext.Visible(which), p.Format, safetext.Visible(p.Where))
	if err := writeTFPlan(g, p); err != nil {
		return err
	}
	if p.Changes() {
		return &exitError{code: exitFailed, err: errDifferences}
	}
	return nil
}

// writeTFPlan prints a readable plan: its warnings, per resource tofu's
// header and the diff of its before and after, then tofu's summary.
func writeTFPlan(g *globals, p *tfplan.Plan) error {
	for _, w := range p.Warnings {
		fmt.Fprintf(g.errOut, "warning: %s\n", safetext.Visible(w))
	}
	out := &safeLines{w: g.out}
	for _, res := range p.Resources {
		fmt.Fprintf(out, "%s\n", res.Header)
		label := res.Address
		if err := res.Diff.Text.WriteUnified(out, label+" (before)", label+" (after)", 3); err != nil {
			return err
		}
		fmt.Fprintln(out)
	}
	if err := out.Close(); err != nil {
		return err
	}
	fmt.Fprintf(g.errOut, "# %s\n", safetext.Visible(p.Summary))
	return nil
}

// diffFailed keeps a diff's exit 1 for differences found: a failure no other
// code names exits exitDiffFailed instead, so that a script never reads "it
// differs" from a diff that was never computed.
func diffFailed(err error) error {
	if err == nil || errors.Is(err, errDifferences) || exitCode(err) != exitFailed {
		return err
	}
	return &exitError{code: exitDiffFailed, err: err}
}

// errDifferences is the exit 1 of a diff that found changes; it is not
// printed as an error.
var errDifferences = errors.New("differences found")
