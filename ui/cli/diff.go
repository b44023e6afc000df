package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// newDiffer picks the diff source: the Argo CD API server when one is
// configured (flags, ARGOCD_SERVER/ARGOCD_AUTH_TOKEN, or the argocd CLI's
// config), else a local render dry-run against the cluster.
func newDiffer(ctx context.Context, g *globals, clusters func(string) (*kube.Cluster, bool)) (*argodiff.Differ, error) {
	server, err := argodiff.LoadServerConfig(argodiff.ServerFlags{Server: g.argocdServer, Token: g.argocdToken})
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("Argo CD server: %w", err)}
	}
	if c, ok := clusters(demo.ContextName); g.demo && ok {
		// The demo answers as an Argo CD API server would.
		if server, err = demo.ArgoAPI(ctx, c); err != nil {
			return nil, err
		}
	}
	return &argodiff.Differ{Cluster: clusters, Source: argodiff.NewSource(argodiff.Options{Server: server})}, nil
}

func newDiffCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "diff argocd/<namespace>/<name>",
		Short: "Print what a sync of an Argo CD Application would change, as a unified diff",
		Long: `Print live against desired for every resource of the Application, Secret
values masked. With an Argo CD API server configured (--argocd-server and
--argocd-token, ARGOCD_SERVER/ARGOCD_AUTH_TOKEN, or an argocd login) it shows
what the server compares; otherwise driftdeck renders the source (plain
manifests or kustomize) at the compared revision and dry-runs it against the
cluster.

As kubectl diff, it exits 0 when there are no differences and 1 when there
are (see the exit codes below).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runDiff(cmd.Context(), g, args[0]) },
	}
}

func runDiff(ctx context.Context, g *globals, ref string) error {
	set, k, err := connectUnit(ctx, g, ref)
	if err != nil {
		return err
	}
	if k.Engine != model.EngineArgoCD {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: diff is for Argo CD Applications; for a Pulumi Stack use `driftdeck preview`", ref)}
	}
	d, err := newDiffer(ctx, g, set.get)
	if err != nil {
		return err
	}
	if err := lookUnit(ctx, set, k); err != nil {
		return err
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
	fmt.Fprintf(g.errOut, "# %d modified, %d added, %d removed (pruned on sync), %d unchanged\n", r.Modified, r.Added, r.Removed, r.Unchanged)
	if r.Modified+r.Added+r.Removed > 0 {
		return &exitError{code: 1, err: errDifferences}
	}
	return nil
}

// errDifferences is the exit 1 of a diff that found changes; it is not
// printed as an error.
var errDifferences = errors.New("differences found")
