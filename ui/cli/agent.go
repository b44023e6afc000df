package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/driftdeck/driftdeck/backend/agent"
	"github.com/driftdeck/driftdeck/backend/agent/securemetrics"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/headless"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/policy"
	"github.com/driftdeck/driftdeck/backend/safetext"
)

type agentOpts struct {
	metricsAddr, probeAddr string
	leaderElect            bool
	leaseNamespace         string
	leaseName              string
	leaseDuration          time.Duration
	interval               time.Duration
	unitNames              bool
	metricsSecure          bool
	metricsCertDir         string
}

func newAgentCmd(g *globals) *cobra.Command {
	o := &agentOpts{}
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run headless: Prometheus metrics, pauses that end on time, opt-in remediation",
		Long: `Run driftdeck without a terminal, on the same live model and write path.

Every replica serves /metrics (driftdeck_* series: units per state, the age
of the oldest stuck or failed unit, pauses and their expiry, the watches'
health) and /healthz, /readyz (ready once a context delivered its first
lists; an unreachable context holds back only itself, and is named). The
replica that holds a context's Lease (--leader-elect; one Lease per context,
in that context's cluster) writes to that context: it resumes each pause
whose expiry has passed, restoring exactly what the pause recorded, audited
and announced under its own identity with the pause's reason quoted, and it
runs the remediation policies of the config file's policies: section (none
unless configured). Outside a cluster it uses the kubeconfig as every other
command; inside, its ServiceAccount.`,
		Example: `  kubectl create namespace driftdeck-system
  driftdeck agent --metrics-bind-address :8080
  driftdeck agent --demo --metrics-bind-address 127.0.0.1:8080 --leader-elect=false`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAgent(cmd.Context(), g, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "where /metrics is served; 0 serves none")
	f.StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "where /healthz and /readyz are served; 0 serves none")
	f.BoolVar(&o.leaderElect, "leader-elect", true, "write only while holding the Lease, so that one replica of many writes (false: write without one; status then cannot tell that an agent runs)")
	f.StringVar(&o.leaseNamespace, "leader-election-namespace", agent.DefaultLeaseNamespace, "namespace of the Lease")
	f.StringVar(&o.leaseName, "leader-election-id", agent.DefaultLeaseName, "name of the Lease")
	f.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "how long a Lease not renewed stays held: the longest a handover takes")
	f.DurationVar(&o.interval, "interval", 10*time.Second, "how often the leader looks for expired pauses and runs the policies")
	f.BoolVar(&o.metricsSecure, "metrics-secure", true, "serve /metrics over TLS, only to bearer tokens the API server authenticates (TokenReview) and allows to get /metrics (SubjectAccessReview; ClusterRole driftdeck-metrics-reader); false serves plain HTTP to anyone who reaches the port (always so with --demo)")
	f.StringVar(&o.metricsCertDir, "metrics-cert-dir", "", "with --metrics-secure: the directory of tls.crt and tls.key (a mounted kubernetes.io/tls Secret, read again when rotated); empty: a self-signed certificate made at start")
	f.BoolVar(&o.unitNames, "metrics-unit-names", false, "add per-unit series (a unit label) for stuck and failed ages and pause expiries")
	return cmd
}

func runAgent(ctx context.Context, g *globals, o *agentOpts) error {
	cfg, err := config.Load(config.DefaultPath())
	if err != nil {
		return usageError(err)
	}
	rules, err := policy.FromConfig(cfg.Policies)
	if err != nil {
		return usageError(err)
	}
	if d := cfg.DriftChecks; d != nil {
		if err := d.Check(); err != nil {
			return usageError(fmt.Errorf("config %s: %w", config.DefaultPath(), err))
		}
	}
	if d := cfg.RootPlans; d != nil {
		if err := d.CheckPlans(); err != nil {
			return usageError(fmt.Errorf("config %s: %w", config.DefaultPath(), err))
		}
	}
	roots, err := rootsOf(g, cfg)
	if err != nil {
		return err
	}
	clusters, err := agentClusters(ctx, g)
	if err != nil {
		return err
	}
	var argo []*fleet.ArgoRoute
	if len(clusters) > 0 {
		if argo, err = argoRoutes(ctx, g, clusters); err != nil {
			return err
		}
	}
	log, err := openAudit()
	if err != nil {
		return err
	}
	h := headless.Options{Clusters: clusters, Namespace: g.namespace(), Config: cfg, Rules: rules, Audit: log,
		ReadOnly: g.readOnly, DryRun: g.dryRun, Interval: o.interval,
		MetricsAddr: o.metricsAddr, ProbeAddr: o.probeAddr, UnitNames: o.unitNames, Log: g.errOut, Argo: argo, Roots: roots}
	if len(roots) > 0 {
		if h.Tofu, err = tofuOf(cfg); err != nil {
			return err
		}
	}
	transport := "plain HTTP (--metrics-secure=false)"
	switch {
	case g.demo:
		transport = "plain HTTP (the demo has no API server to ask who may read it)"
	case o.metricsSecure && len(clusters) > 0:
		if h.MetricsTLS, err = securemetrics.TLSConfig(o.metricsCertDir); err != nil {
			return usageError(err)
		}
		// The agent's own cluster (its first context) reviews the callers.
		h.MetricsGuard = &securemetrics.Guard{Client: clusters[0].Kube}
		transport = "HTTPS to callers " + clusters[0].Context + "'s API server authorizes (get /metrics)"
	}
	if o.leaderElect {
		h.Lease = &headless.LeaseSpec{Namespace: o.leaseNamespace, Name: o.leaseName, Identity: replicaIdentity(), Duration: o.leaseDuration}
	}
	a, done, err := headless.Start(ctx, h)
	if err != nil {
		return usageError(err)
	}
	route := ""
	for _, r := range argo {
		route += fmt.Sprintf(" (Argo CD of %s through %s)", r.Context, r.Client.Server())
	}
	fmt.Fprintf(g.errOut, "driftdeck agent: metrics on %s, probes on %s, %d polic(ies), contexts %s%s; /metrics over %s\n",
		addrOr(a, "metrics"), addrOr(a, "probes"), len(rules), safetext.Visible(strings.Join(a.Contexts, ", ")), safetext.Visible(route), safetext.Visible(transport))
	<-done
	return nil
}

func addrOr(a *agent.Agent, which string) string {
	if ad := a.Addr(which); ad != nil {
		return ad.String()
	}
	return "(off)"
}

// agentClusters are the selected kubeconfig contexts (or the demo); in a
// pod without a kubeconfig, its ServiceAccount.
func agentClusters(ctx context.Context, g *globals) ([]*kube.Cluster, error) {
	if g.demo {
		c, err := startDemo(ctx, g)
		if err != nil {
			return nil, err
		}
		return []*kube.Cluster{c}, nil
	}
	names, err := contextNames(g)
	if errors.Is(err, errNoKubeconfig) {
		cfg, ierr := rest.InClusterConfig()
		if ierr != nil {
			return nil, err
		}
		c, err := kube.NewCluster("in-cluster", cfg, "")
		if err != nil {
			return nil, err
		}
		return []*kube.Cluster{c}, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*kube.Cluster
	for _, n := range names {
		c, err := connectContext(g, n)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// replicaIdentity names this replica in the Lease: the pod's name in a
// cluster (the Deployment sets POD_NAME), else host and process.
func replicaIdentity() string {
	if n := os.Getenv("POD_NAME"); n != "" {
		return n
	}
	h, _ := os.Hostname()
	return fmt.Sprintf("%s_%d", h, os.Getpid())
}
