package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/livetree"
	"github.com/driftdeck/driftdeck/backend/logs"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

type logsFlags struct {
	resource, container string
	follow, previous    bool
	timestamps          bool
	since               time.Duration
	tail                int64
}

func newLogsCmd(g *globals) *cobra.Command {
	f := &logsFlags{}
	cmd := &cobra.Command{
		Use:   "logs <unit> [--resource pod/<name>|job/<name>] [-f] [-c container] [--previous] [--since 10m] [--tail N]",
		Short: "Print the log of the pod a unit runs in: a Stack's workspace pod, an Argo CD operation's hook Job, a Flux controller's lines about the unit",
		Long: `Print a pod's log, as kubectl logs, for the pod that answers "what is this
unit doing": for a Pulumi operator v2 Stack the workspace pod that runs its
current Update (container pulumi, the update's output as it runs); for an
Argo CD Application the pods of the hook Jobs of its running (or last)
operation, the running hooks first; for a Terraform its runner pod; for a
Flux Kustomization or HelmRelease the log of kustomize-controller or
helm-controller narrowed to the lines about it, each read as flux logs
prints it (--tail and --since count the controller's lines before they are
narrowed). --resource names a pod or a Job instead (pod/<name>, job/<name>,
or kind/<namespace>/<name>; the namespace defaults to the Application's
destination, else the unit's namespace): pod/flux-system/<controller pod>
is the controller's whole log.

Values of the Secrets the pod references (env, envFrom, volumes) are
masked where they appear whole in a line, when driftdeck may read those
Secrets; a warning says which it may not. Control characters and escape
sequences are shown escaped.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runLogs(cmd.Context(), g, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.resource, "resource", "", "the pod or Job to read instead of the unit's own: pod/<name>, job/<name>")
	fl.StringVarP(&f.container, "container", "c", "", "the container (default: the one that runs the unit's work, else the pod's default)")
	fl.BoolVarP(&f.follow, "follow", "f", false, "keep streaming new lines")
	fl.BoolVarP(&f.previous, "previous", "p", false, "the log of the container's previous (terminated) instance")
	fl.DurationVar(&f.since, "since", 0, "only lines newer than this, e.g. 10m")
	fl.Int64Var(&f.tail, "tail", -1, "only the last N lines (-1: all)")
	fl.BoolVar(&f.timestamps, "timestamps", false, "prefix each line with the time it was logged")
	return cmd
}

// newLogService reads logs from the clusters' API servers, or from the
// demo's scripts.
func newLogService(g *globals, clusters func(string) (*kube.Cluster, bool), argo func(string) (*argoapi.Client, bool), dest livetree.Destinations) *logs.Service {
	s := &logs.Service{Cluster: clusters, ArgoAPI: argo, Destination: func(app map[string]any, own *kube.Cluster) (*kube.Cluster, string) {
		c, where, _ := dest.Resolve(app, own, clusters)
		return c, where
	}}
	if c, ok := clusters(demo.ContextName); g.demo && ok {
		s.Open = demo.LogOpener(c)
	}
	return s
}

func runLogs(ctx context.Context, g *globals, ref string, f *logsFlags) error {
	set, k, err := connectUnit(ctx, g, ref)
	if err != nil {
		return err
	}
	if err := lookUnit(ctx, set, k); err != nil {
		return err
	}
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	trees, err := newTreeReader(g, cfg, set.get, set.argoAPI)
	if err != nil {
		return err
	}
	s := newLogService(g, set.get, set.argoAPI, trees.Destinations)
	var targets []logs.Target
	if f.resource != "" {
		targets, err = s.Resource(ctx, k, f.resource)
	} else {
		targets, err = s.Targets(ctx, k)
	}
	if err != nil {
		return logsError(err)
	}
	t := targets[0]
	container := f.containerOr(t.Container)
	// Through Argo CD's API server the containers are not known: the
	// server says so if there is no such one.
	if f.container != "" && t.Containers != nil && !slices.Contains(t.Containers, f.container) {
		return usageError(fmt.Errorf("%s has no container %q (have: %s)", t.Pod, f.container, strings.Join(t.Containers, ", ")))
	}
	shown := container
	if shown == "" {
		shown = "(the pod's default)"
	}
	header := fmt.Sprintf("# %s, container %s", safetext.Visible(t.Pod.String()), safetext.Visible(shown))
	if t.Why != "" {
		header += ": " + safetext.Visible(t.Why)
	}
	fmt.Fprintln(g.errOut, header)
	for _, other := range targets[1:] {
		fmt.Fprintf(g.errOut, "# also: %s (%s)\n", safetext.Visible(other.Pod.String()), safetext.Visible(other.Why))
	}
	var werr error
	err = s.Stream(ctx, t.Pod, logs.Options{Container: container, Follow: f.follow, Previous: f.previous, Since: f.since, Tail: f.tail, Timestamps: f.timestamps, About: t.About}, func(l logs.Line) {
		if l.Notice {
			fmt.Fprintln(g.errOut, "warning:", l.Text)
			return
		}
		if _, err := fmt.Fprintln(g.out, l.Text); err != nil && werr == nil {
			werr = err
		}
	})
	return logsError(errors.Join(err, werr))
}

// logsError gives the backend's answers their exit codes: no pod is "not
// found", a malformed --resource is usage.
// containerOr is the container asked for, else def.
func (f *logsFlags) containerOr(def string) string {
	if f.container != "" {
		return f.container
	}
	return def
}

func logsError(err error) error {
	var ue *logs.UsageError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return usageError(err)
	case errors.Is(err, logs.ErrUnreachableDestination):
		return &exitError{code: exitUnreachable, err: err}
	case errors.Is(err, logs.ErrNoPod):
		return &exitError{code: exitNotFound, err: fmt.Errorf("%w; name a pod with --resource pod/<name> or job/<name>", err)}
	}
	return err
}
