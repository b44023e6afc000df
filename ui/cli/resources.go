package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/livetree"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/restree"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// newTreeReader reads resource trees with the config file's destinations;
// in the demo, its one cluster plays every destination.
func newTreeReader(g *globals, cfg *config.Config, clusters func(string) (*kube.Cluster, bool), argo func(string) (*argoapi.Client, bool)) (*livetree.Reader, error) {
	byServer, byName, err := cfg.DestinationContexts()
	if err != nil {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("config %s: %w", config.DefaultPath(), err)}
	}
	return &livetree.Reader{Cluster: clusters, ArgoAPI: argo, Destinations: livetree.Destinations{ByServer: byServer, ByName: byName, All: g.demo}}, nil
}

func newResourcesCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "resources argocd/<namespace>/<name> | kustomization/<namespace>/<name> | helmrelease/<namespace>/<name>",
		Short: "Print an Application's, a Kustomization's or a HelmRelease's live resource tree: health, sync state and why the unhealthy ones are",
		Long: `Print the resources of an Argo CD Application (status.resources) with the
live objects they own on the destination cluster, following ownerReferences
(Deployment -> ReplicaSet -> Pod, Job -> Pod, StatefulSets, DaemonSets,
Services, Ingresses), each with its health as Argo CD computes it, its sync
state and the reason of the unhealthy ones, then the hooks of the current or
last operation with their Jobs' pods.

The live objects are read when driftdeck reaches the destination: the
in-cluster destination (https://kubernetes.default.svc) is the cluster the
Application is on; another one needs a connected context (--context) that the
config file maps to it (destinations: [{server: <url>, context: <name>}]) or
that is named like the destination. Otherwise the tree is what
status.resources says, and a note says why. Resources are named
group/kind/namespace/name, core kinds kind/namespace/name (as kubectl names
them); sync some of them with driftdeck sync <unit> --resource <that name> ...

A Flux Kustomization's tree is its inventory (status.inventory: what its
last apply recorded, as flux tree kustomization lists it) with the live
objects they own on the Kustomization's cluster, each with its health and
why; it has no per-object sync state. One that applies to another cluster
(spec.kubeConfig) is shown from its inventory alone.

A Flux HelmRelease's tree is its current release's manifest, as flux tree
helmrelease lists it: read from the release's storage Secret
(sh.helm.release.v1.<release>.v<version> in status.storageNamespace; only
the manifest is used, never the values stored with it, which needs get on
that Secret), with the live objects they own and their health.`,
		Example: "  driftdeck resources argocd/argocd/guestbook\n  driftdeck resources argocd/argocd/guestbook -o json\n  driftdeck resources kustomization/team-web/web-backend\n  driftdeck resources helmrelease/monitoring/kube-prometheus-stack",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runResources(cmd.Context(), g, args[0], g.output)
		},
	}
	cmd.Flags().StringVarP(&g.output, "output", "o", "table", "output format: table or json")
	return cmd
}

func runResources(ctx context.Context, g *globals, ref, output string) error {
	if output != "table" && output != "json" {
		return usageError(fmt.Errorf("-o %q: want table or json", output))
	}
	set, k, err := connectUnit(ctx, g, ref)
	if err != nil {
		return err
	}
	if !model.InfoOf(k.Engine).ResourceTree {
		return usageError(fmt.Errorf("%s: resource trees are for Argo CD Applications, Flux Kustomizations and HelmReleases", ref))
	}
	if err := lookUnit(ctx, set, k); err != nil {
		return err
	}
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	r, err := newTreeReader(g, cfg, set.get, set.argoAPI)
	if err != nil {
		return err
	}
	t, err := r.Read(ctx, k)
	if err != nil {
		return err
	}
	if output == "json" {
		return printTreeJSON(g, t)
	}
	printTree(g, t)
	return nil
}

func printTree(g *globals, t *restree.Tree) {
	src := "live objects from " + t.Destination
	if !t.LiveRead {
		src = t.Recorded + " only"
	}
	fmt.Fprintf(g.errOut, "# %s (%s)\n", safetext.Visible(t.Summary()), safetext.Visible(src))
	for _, n := range t.Notes {
		fmt.Fprintf(g.errOut, "note: %s\n", safetext.Visible(n))
	}
	w := tabwriter.NewWriter(g.out, 0, 4, 2, ' ', 0)
	defer w.Flush()
	cols := "%s\t%s\t%s\t%s\n"
	if !t.PerResource { // a Kustomization's objects have no sync state of their own
		cols = "%s\t%s\t%.0s%s\n"
	}
	fmt.Fprintf(w, cols, "RESOURCE", "HEALTH", "SYNC", "REASON")
	hooks := false
	for _, r := range t.Rows() {
		if r.Hook && !hooks {
			hooks = true
			fmt.Fprintf(w, "# hooks of the operation (%s)\t\t\t\n", safetext.Visible(orNone(t.Operation)))
		}
		n := r.Node
		name := strings.Repeat("  ", r.Depth) + n.Ref.String()
		state := n.Sync
		if n.Hook != "" {
			state = n.Hook + "/" + n.HookPhase
		}
		fmt.Fprintf(w, cols, safetext.Visible(name), orDash(string(n.Health)), safetext.Visible(orDash(state)), safetext.Visible(n.Reason))
	}
}

// treeRecord is one resource of -o json: every field from the cluster is
// escaped like the table.
type treeRecord struct {
	Resource  string       `json:"resource"`
	Health    string       `json:"health"`
	Sync      string       `json:"sync,omitempty"`
	Managed   bool         `json:"managed"`
	Hook      string       `json:"hook,omitempty"`
	HookPhase string       `json:"hookPhase,omitempty"`
	Reason    string       `json:"reason,omitempty"`
	Live      bool         `json:"live"`
	Children  []treeRecord `json:"children,omitempty"`
}

func recordsOf(nodes []*restree.Node) []treeRecord {
	var out []treeRecord
	for _, n := range nodes {
		out = append(out, treeRecord{
			Resource: safetext.Visible(n.Ref.String()), Health: string(n.Health), Sync: safetext.Visible(n.Sync), Managed: n.Managed,
			Hook: safetext.Visible(n.Hook), HookPhase: safetext.Visible(n.HookPhase), Reason: safetext.Visible(n.Reason), Live: n.Live,
			Children: recordsOf(n.Children),
		})
	}
	return out
}

func printTreeJSON(g *globals, t *restree.Tree) error {
	return writeJSON(g.out, map[string]any{
		"destination": safetext.Visible(t.Destination), "liveRead": t.LiveRead, "operation": safetext.Visible(t.Operation),
		"notes": visibleAll(t.Notes), "resources": recordsOf(t.Roots), "hooks": recordsOf(t.Hooks),
	})
}

func visibleAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = safetext.Visible(s)
	}
	return out
}
