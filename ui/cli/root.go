// Package cli is driftdeck's command line: kubectl-style global flags, the
// TUI as the default command, and one subcommand per runbook step.
package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/klog/v2"

	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// Version is stamped at build time (-ldflags -X); "dev" otherwise.
var Version = "dev"

// globals are the flags every command shares.
type globals struct {
	kube          *kube.Flags
	allNamespaces bool
	// namespaceList is --namespaces: several namespaces, each read on its
	// own (for an identity that may not list every namespace).
	namespaceList []string
	demo          bool
	readOnly      bool
	dryRun        bool
	argocdServer  string
	argocdToken   string
	// argocdContexts: --argocd-context, the argocd CLI's contexts serving
	// the kube contexts in their order.
	argocdContexts []string
	// argocdPlainText and argocdInsecure: --argocd-plaintext and
	// --argocd-insecure, as the argocd CLI's own flags.
	argocdPlainText, argocdInsecure bool
	// argocdPortForward and argocdPortForwardNamespace: reach argocd-server
	// through the Kubernetes API's port-forward (as argocd --port-forward).
	argocdPortForward          bool
	argocdPortForwardNamespace string
	// argocdProjects and argocdSelector: --argocd-project and
	// --argocd-selector, what argocd-server sends (as argocd app list -p, -l).
	argocdProjects []string
	argocdSelector string
	output         string
	// engines limits what is read to these engines' units (--engine); nil
	// reads every engine.
	engines []model.Engine
	// roots are --root: root module directories read beside the clusters.
	roots       []string
	in          io.Reader
	out, errOut io.Writer
}

// argoFlags are the command line's say on the Argo CD API server.
func (g *globals) argoFlags() argodiff.ServerFlags {
	return argodiff.ServerFlags{Server: g.argocdServer, Token: g.argocdToken, PlainText: g.argocdPlainText, Insecure: g.argocdInsecure}
}

// outIsTerminal tells whether stdout is a terminal (tables fit it then).
func (g *globals) outIsTerminal() bool { return isTerminal(g.out) }

// inIsTerminal tells whether there is a terminal to confirm on.
func (g *globals) inIsTerminal() bool { return isTerminal(g.in) }

func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// silenceKlog stops client-go's logging through klog to stderr: on a
// full-screen terminal it would scribble over the UI, and errors reach the
// user through driftdeck. Once per process: klog's settings are globals that
// watches still winding down from an earlier run read.
var silenceKlog = sync.OnceFunc(func() {
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	klog.SetLogger(logr.Discard()) // error-level lines bypass SetOutput otherwise
})

// Main runs the command line and returns the process exit code.
func Main(args []string, in io.Reader, out, errOut io.Writer) int {
	silenceKlog()
	defer demo.Cleanup()
	g := &globals{kube: newKubeFlags(), in: in, out: out, errOut: errOut}
	root := newRoot(g)
	root.SetArgs(args)
	root.SetIn(in)
	root.SetOut(out)
	root.SetErr(errOut)
	// Everything a command started (the demo control plane, its drifter,
	// watches) ends with it: in-process callers (the tests) run Main
	// hundreds of times, and each left demo kept its memory and CPU.
	// A closed terminal (SIGHUP) or a stop (SIGTERM) ends the command as a
	// quit does: what it started in the background (the demo's long apply,
	// a tofu run in a process group of its own) is interrupted, not left
	// running. A second such signal ends the process at once.
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGHUP, syscall.SIGTERM)
	defer cancel()
	go func() { <-ctx.Done(); cancel() }()
	err := root.ExecuteContext(ctx)
	if g.demo {
		// What the command wrote is there for the next --demo command.
		if kerr := demo.Keep(context.Background()); kerr != nil {
			fmt.Fprintln(errOut, "error: the demo's state was not kept:", safetext.Visible(kerr.Error()))
		}
	}
	if err != nil && !errors.Is(err, errDifferences) {
		// Errors quote what clusters and state backends answered.
		fmt.Fprintln(errOut, "error:", safetext.Block(err.Error()))
	}
	return exitCode(err)
}

// newKubeFlags are kubectl's connection flags.
func newKubeFlags() *kube.Flags { return kube.NewFlags() }

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:   "driftdeck",
		Short: "A terminal workbench for every GitOps reconciler in a cluster",
		Long: `driftdeck shows every GitOps reconciler of the selected clusters in one live
list: Argo CD Applications, Pulumi operator Stacks, Flux Kustomizations and
HelmReleases, and tofu-controller Terraforms, with what would change, and lets
you pause self-heal, suspend, sync, reconcile, terminate, retry, unlock and
approve from one screen, audited.

Without a subcommand it starts the full-screen workbench. --demo runs it on an
embedded demo control plane instead of a cluster.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTUI(cmd.Context(), g)
		},
	}
	g.kube.AddFlags(root.PersistentFlags())
	pf := root.PersistentFlags()
	pf.BoolVarP(&g.allNamespaces, "all-namespaces", "A", false, "watch every namespace (the default unless -n is given)")
	pf.StringSliceVar(&g.namespaceList, "namespaces", nil, "watch these namespaces, each on its own, for an identity that may not list every namespace (without it or -n, a resource that may not be listed in every namespace is read in the context's namespace)")
	pf.BoolVar(&g.demo, "demo", false, "run on the embedded demo control plane instead of a cluster")
	pf.BoolVar(&g.readOnly, "read-only", false, "refuse every write (enforced by the backend)")
	pf.BoolVar(&g.dryRun, "dry-run", false, "write nothing: Kubernetes writes go as server-side dry runs, unlock and preview --approve print exactly what they would write")
	pf.StringVar(&g.argocdServer, "argocd-server", "", "Argo CD API server: the first context's Applications are read through it, under your Argo CD identity, and diffs come from it (default: $ARGOCD_SERVER, else the argocd CLI's current context)")
	pf.BoolVar(&g.argocdPlainText, "argocd-plaintext", false, "reach the Argo CD API server over plain HTTP (as argocd --plaintext)")
	pf.BoolVar(&g.argocdInsecure, "argocd-insecure", false, "do not verify the Argo CD API server's TLS certificate (as argocd --insecure)")
	pf.BoolVar(&g.argocdPortForward, "argocd-port-forward", false, "reach argocd-server through the Kubernetes API's port-forward to its pod, when it is not exposed (as argocd --port-forward; log in with argocd login --port-forward)")
	pf.StringVar(&g.argocdPortForwardNamespace, "argocd-port-forward-namespace", "", "the namespace of argocd-server's pod, reached through a port-forward (implies --argocd-port-forward; default: the context's namespace)")
	pf.StringSliceVar(&g.argocdProjects, "argocd-project", nil, "through the Argo CD API server, read only these projects' Applications (as argocd app list -p): argocd-server sends no others")
	pf.StringVar(&g.argocdSelector, "argocd-selector", "", "through the Argo CD API server, read only the Applications with these labels, e.g. team=payments (as argocd app list -l)")
	pf.StringVar(&g.argocdToken, "argocd-token", "", "Argo CD API token (default: $ARGOCD_AUTH_TOKEN, else the argocd CLI's login)")
	pf.StringSliceVar(&g.argocdContexts, "argocd-context", nil, "the argocd CLI's contexts (argocd context), one per kube context of --context in its order, each that context's Argo CD: several instances side by side; - leaves a kube context on the Kubernetes API")
	pf.StringArrayVar(&g.roots, "root", nil, "read this Terraform/OpenTofu root module directory too, as unit root/default/<directory> (repeatable; no cluster needed; see roots: in the config for workspaces and var files)")
	root.AddCommand(newVersionCmd(g), newStatusCmd(g), newTreeCmd(g), newDiffCmd(g), newPreviewCmd(g), newDriftCmd(g), newUnlockCmd(g), newStateCmd(g), newAgentCmd(g), newDoctorCmd(g), newLogsCmd(g), newRequestCmd(g), newRequestsCmd(g), newReviewCmd(g), newPlanCmd(g))
	root.AddCommand(newActionCmds(g)...)
	root.AddCommand(newBulkCmds(g)...)
	root.AddCommand(newResourcesCmd(g))
	root.Version = Version
	root.SetVersionTemplate(versionLine() + "\n")
	markUsage(root)
	return root
}

// versionLine is what --version and `driftdeck version` print.
func versionLine() string {
	return fmt.Sprintf("driftdeck %s (%s, %s/%s)", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print driftdeck's version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(g.out, versionLine())
			return err
		},
	}
}
