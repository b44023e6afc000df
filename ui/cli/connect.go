package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/driftdeck/driftdeck/backend/argoapi"
	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/argodiff"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/demo"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

// errNoKubeconfig explains what to do when there is no cluster to talk to.
var errNoKubeconfig = errors.New("no kubeconfig found (looked at --kubeconfig, $KUBECONFIG and ~/.kube/config); " +
	"run `driftdeck --demo` to try driftdeck on its embedded demo control plane")

// namespace is the namespace selection: -n limits, otherwise all namespaces.
func (g *globals) namespace() string {
	if g.allNamespaces {
		return ""
	}
	return g.kube.Namespace
}

// namespaces are the namespaces read: --namespaces, each on its own, or
// the one of namespace ("" for all).
func (g *globals) namespaces() []string {
	if len(g.namespaceList) > 0 {
		return g.namespaceList
	}
	return []string{g.namespace()}
}

// requestTimeout is --request-timeout, or def when unset or zero.
func (g *globals) requestTimeout(def time.Duration) time.Duration {
	if g.kube.Timeout == "" || g.kube.Timeout == "0" {
		return def
	}
	d, err := time.ParseDuration(g.kube.Timeout)
	if err != nil {
		return def
	}
	return d
}

// connect builds the fleet of the selected contexts (or the demo) and starts
// watching. It returns once discovery is done in every context; with
// tolerant, a context that cannot be reached is retried in the background
// instead (the workbench shows it as disconnected meanwhile).
func connect(ctx context.Context, g *globals, th model.Thresholds, tolerant bool) (*fleet.Fleet, error) {
	if len(g.namespaceList) > 0 && (g.allNamespaces || g.kube.Namespace != "") {
		return nil, usageError(errors.New("--namespaces names the namespaces read: give it without -n and -A"))
	}
	if slices.Contains(g.namespaceList, "") {
		return nil, usageError(errors.New("--namespaces: a namespace name is empty"))
	}
	opts := fleet.Options{Thresholds: th, Engines: g.engines}
	if g.demo {
		f := fleet.New(opts)
		c, err := startDemo(ctx, g)
		if err != nil {
			return nil, err
		}
		if err := f.Add(ctx, c, g.namespaces()...); err != nil {
			return nil, err
		}
		return f, addRoots(ctx, g, f, tolerant)
	}
	names, err := contextNames(g)
	if err != nil && !onlyRoots(g, err) {
		return nil, err
	}
	clusters := make([]*kube.Cluster, len(names))
	for i, name := range names {
		if clusters[i], err = connectContext(g, name); err != nil {
			return nil, err
		}
	}
	if len(clusters) > 0 {
		if opts.Argo, err = argoRoutes(ctx, g, clusters); err != nil {
			return nil, err
		}
	}
	f := fleet.New(opts)
	for _, c := range clusters {
		if tolerant {
			f.AddRetrying(ctx, c, g.namespaces()...)
			continue
		}
		if err := f.Add(ctx, c, g.namespaces()...); err != nil {
			return nil, &exitError{code: exitUnreachable, err: fmt.Errorf("cluster unreachable: %w", err)}
		}
	}
	return f, addRoots(ctx, g, f, tolerant)
}

// argoRoutes are the ways to the contexts' Argo CD instances through
// their API servers (argoRoutesOf), each reading what --argocd-project and
// --argocd-selector let through.
func argoRoutes(ctx context.Context, g *globals, clusters []*kube.Cluster) ([]*fleet.ArgoRoute, error) {
	filter, err := g.argoFilter()
	if err != nil {
		return nil, err
	}
	routes, err := argoRoutesOf(ctx, g, clusters)
	switch {
	case err != nil:
		return nil, err
	case len(routes) == 0 && (len(filter.Projects) > 0 || filter.Selector != ""):
		return nil, usageError(errors.New("--argocd-project and --argocd-selector limit what the Argo CD API server sends: name one with --argocd-server, --argocd-port-forward or --argocd-context"))
	}
	for _, r := range routes {
		r.Client.Only(filter)
	}
	return routes, nil
}

// argoFilter is --argocd-project and --argocd-selector, checked.
func (g *globals) argoFilter() (argoapi.Filter, error) {
	for _, p := range g.argocdProjects {
		if strings.TrimSpace(p) == "" {
			return argoapi.Filter{}, usageError(errors.New("--argocd-project: a project name is empty"))
		}
	}
	if _, err := labels.Parse(g.argocdSelector); err != nil {
		return argoapi.Filter{}, usageError(fmt.Errorf("--argocd-selector: %w", err))
	}
	return argoapi.Filter{Projects: g.argocdProjects, Selector: g.argocdSelector}, nil
}

// argoRoutesOf: with --argocd-context, each argocd CLI context named
// serves the kube context in its place; else the first context's, as
// argoRoute finds it.
func argoRoutesOf(ctx context.Context, g *globals, clusters []*kube.Cluster) ([]*fleet.ArgoRoute, error) {
	if len(g.argocdContexts) == 0 {
		r, err := argoRoute(ctx, g, clusters[0])
		if r == nil {
			return nil, err
		}
		return []*fleet.ArgoRoute{r}, nil
	}
	switch {
	case g.argocdServer != "" || g.argocdToken != "":
		return nil, usageError(errors.New("--argocd-context takes each server and token from the argocd CLI's contexts: give it without --argocd-server and --argocd-token"))
	case os.Getenv(argodiff.EnvServer) != "" || os.Getenv(argodiff.EnvAuthToken) != "":
		return nil, usageError(fmt.Errorf("--argocd-context takes each server and token from the argocd CLI's contexts: unset %s and %s", argodiff.EnvServer, argodiff.EnvAuthToken))
	case len(g.argocdContexts) > len(clusters):
		return nil, usageError(fmt.Errorf("--argocd-context names %d Argo CD contexts for %d kube contexts: the first serves the first of --context, and so on", len(g.argocdContexts), len(clusters)))
	}
	var routes []*fleet.ArgoRoute
	for i, name := range g.argocdContexts {
		if name == "-" {
			continue
		}
		flags := g.argoFlags()
		flags.Context = name
		server, err := g.argoServer(flags, clusters[i])
		switch {
		case err != nil:
			return nil, usageError(fmt.Errorf("--argocd-context %s: %w", safetext.Visible(name), err))
		case server == nil:
			return nil, usageError(fmt.Errorf("--argocd-context %s: it has no API server (a --core context)", safetext.Visible(name)))
		}
		if err := server.RenewExpired(ctx); err != nil {
			return nil, err
		}
		client, err := argoapi.New(server)
		if err != nil {
			return nil, usageError(fmt.Errorf("--argocd-context %s: %w", safetext.Visible(name), err))
		}
		routes = append(routes, &fleet.ArgoRoute{Client: client, Context: clusters[i].Context})
	}
	return routes, nil
}

// argoRoute is the way to the first context's Argo CD through its API
// server (ADR 0033): when --argocd-server or $ARGOCD_SERVER names one, or
// when the argocd CLI's current context has one and the kube identity may
// not list Applications where they are read (a login found in a config
// file may be another instance's: it is not taken over a kube identity
// that can read them); nil otherwise.
func argoRoute(ctx context.Context, g *globals, c *kube.Cluster) (*fleet.ArgoRoute, error) {
	server, err := g.argoServer(g.argoFlags(), c)
	if err != nil {
		return nil, usageError(fmt.Errorf("Argo CD server: %w", err))
	}
	if server == nil || !server.Named && mayListApplications(ctx, g, c) {
		return nil, nil
	}
	if err := server.RenewExpired(ctx); err != nil {
		return nil, err
	}
	client, err := argoapi.New(server)
	if err != nil {
		return nil, usageError(fmt.Errorf("Argo CD server: %w", err))
	}
	return &fleet.ArgoRoute{Client: client, Context: c.Context}, nil
}

// argoServerSelector picks argocd-server's pod, as argocd --port-forward
// does (its --server-name default).
const argoServerSelector = "app.kubernetes.io/name=argocd-server"

// argoServerPort is the port argocd-server's pod serves its API on.
const argoServerPort = 8080

// portForward: --argocd-port-forward, or a namespace for it (as the argocd
// CLI takes --port-forward-namespace alone).
func (g *globals) portForward() bool {
	return g.argocdPortForward || g.argocdPortForwardNamespace != ""
}

// argoServer resolves the Argo CD API server of flags; with
// --argocd-port-forward, or a login made by `argocd login --port-forward`,
// it is reached through a port-forward to its pod on c.
func (g *globals) argoServer(flags argodiff.ServerFlags, c *kube.Cluster) (*argodiff.ServerConfig, error) {
	if g.portForward() {
		if flags.Server != "" {
			return nil, usageError(errors.New("--argocd-port-forward reaches argocd-server through its pod: give it without --argocd-server"))
		}
		flags.Server = argodiff.PortForwardServer
	}
	server, err := argodiff.LoadServerConfig(flags)
	if err != nil || server == nil || server.Server != argodiff.PortForwardServer {
		return server, err
	}
	if g.demo || c.REST == nil {
		return nil, usageError(errors.New("--argocd-port-forward needs a cluster: the demo has no argocd-server pod"))
	}
	ns := g.argocdPortForwardNamespace
	if ns == "" {
		ns = c.Namespace
	}
	fwd := c.ForwardToPod(ns, argoServerSelector, argoServerPort)
	server.Through(fwd.DialContext, fwd.String())
	return server, nil
}

// mayListApplications tells whether the kube identity may list Argo CD
// Applications in a namespace read; a cluster that cannot be asked counts
// as yes (the route stays as it was).
func mayListApplications(ctx context.Context, g *globals, c *kube.Cluster) bool {
	// Bounded: a cluster that does not answer must not hold the workbench.
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, ns := range g.namespaces() {
		if v, err := c.Access.Can(ctx, "list", argocd.Applications, ns, ""); err != nil || v.Allowed {
			return true
		}
	}
	return false
}

// stateDir is driftdeck's directory in the user's state directory, where
// the audit log and the demo's kept state live.
func stateDir() (string, error) {
	path, err := audit.DefaultPath()
	if err != nil {
		return "", err
	}
	return filepath.Dir(path), nil
}

// openAudit opens the local audit log every write is recorded in.
func openAudit() (*audit.Log, error) {
	path, err := audit.DefaultPath()
	if err != nil {
		return nil, err
	}
	log, err := audit.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (set XDG_STATE_HOME to a writable directory)", err)
	}
	return log, nil
}

// startDemo starts the demo control plane, from the state the last --demo
// command kept (Main keeps it when the command ends). Its one context is named
// demo.ContextName: a --context naming another is an unknown context, as it
// is without --demo.
func startDemo(ctx context.Context, g *globals) (*kube.Cluster, error) {
	if g.portForward() || len(g.argocdProjects) > 0 || g.argocdSelector != "" {
		return nil, usageError(errors.New("--argocd-port-forward, --argocd-project and --argocd-selector choose how argocd-server is reached and what it sends: the demo has no argocd-server"))
	}
	for _, n := range strings.Split(g.kube.Context, ",") {
		if n = strings.TrimSpace(n); n != "" && n != demo.ContextName {
			return nil, usageError(fmt.Errorf("context %q not found in the demo (have: %s)", n, demo.ContextName))
		}
	}
	dir, err := stateDir()
	if err != nil {
		return nil, err
	}
	c, err := demo.Start(ctx, demo.Options{StateDir: dir})
	if err != nil {
		return nil, fmt.Errorf("starting the demo control plane: %w", err)
	}
	return c, nil
}

// contextNames reads the kubeconfig for the selected contexts: a missing or
// broken kubeconfig and an unknown context are usage errors.
func contextNames(g *globals) ([]string, error) {
	names, err := kube.ContextNames(g.kube)
	if errors.Is(err, kube.ErrNoKubeconfig) {
		return nil, usageError(errNoKubeconfig)
	}
	if err != nil {
		return nil, usageError(err)
	}
	return names, nil
}

// connectContext builds one context's clients (nothing is sent yet).
func connectContext(g *globals, name string) (*kube.Cluster, error) {
	c, err := kube.Connect(g.kube, name)
	if errors.Is(err, kube.ErrNoKubeconfig) {
		return nil, usageError(errNoKubeconfig)
	}
	if err != nil {
		return nil, usageError(err)
	}
	return c, nil
}
