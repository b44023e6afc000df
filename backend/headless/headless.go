// Package headless wires the agent as `driftdeck agent` runs it: the live
// model of every context, one write path for the pauses that end and the
// policies, and a Lease per context. The command line only reads its flags
// and config file into Options.
package headless

import (
	"context"
	"crypto/tls"
	"io"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/agent"
	"github.com/driftdeck/driftdeck/backend/agent/securemetrics"
	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/fleet"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/policy"
	"github.com/driftdeck/driftdeck/backend/residency"
	"github.com/driftdeck/driftdeck/backend/rootmod"
	"github.com/driftdeck/driftdeck/backend/rootreq"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// Options are an agent over clusters: a Lease per context when Lease is
// set.
type Options struct {
	Clusters []*kube.Cluster
	// Namespace limits the watches ("" is every namespace).
	Namespace string
	Config    *config.Config
	// Rules are the config file's remediation policies, read.
	Rules            []policy.Rule
	Audit            *audit.Log
	ReadOnly, DryRun bool
	Interval         time.Duration
	// MetricsAddr and ProbeAddr are where /metrics and /healthz, /readyz
	// are served; "" or "0" serves none.
	MetricsAddr, ProbeAddr string
	// MetricsTLS and MetricsGuard secure /metrics (nil: plain, to anyone).
	MetricsTLS   *tls.Config
	MetricsGuard *securemetrics.Guard
	UnitNames    bool
	// Lease elects the writer of each context; nil writes without one.
	Lease *LeaseSpec
	// Argo are Argo CD API servers, each its context's way to its
	// Applications: read and written under that token's Argo CD identity
	// (a project role's, for a machine; ADR 0033).
	Argo []*fleet.ArgoRoute
	// Roots are the root modules read beside the clusters, run by Tofu;
	// the writer of the first context plans them (Config.RootPlans).
	Roots []rootmod.Root
	Tofu  *rootmod.Tofu
	Log   io.Writer
}

// rootRequestLockWait is how long the agent's plan and apply of an
// approved root module's request wait for its state lock (another run, a
// person's plan), as tofu's -lock-timeout.
const rootRequestLockWait = 2 * time.Minute

// LeaseSpec is the Lease each context's writer holds, in that context's
// cluster.
type LeaseSpec struct {
	Namespace, Name string
	// Identity names this replica in the Lease.
	Identity string
	Duration time.Duration
}

// Start connects every context (retrying the unreachable ones in the
// background) and runs the agent until ctx ends; done closes when it has
// stopped.
func Start(ctx context.Context, h Options) (a *agent.Agent, done <-chan struct{}, err error) {
	f := fleet.New(fleet.Options{Thresholds: h.Config.StuckThresholds(), Argo: h.Argo})
	var names []string
	for _, c := range h.Clusters {
		names = append(names, c.Context)
		f.AddRetrying(ctx, c, h.Namespace)
	}
	if len(h.Roots) > 0 {
		f.AddRoots(ctx, h.Tofu, h.Roots, nil)
	}
	exec := &actions.Executor{Cluster: f.Cluster, ArgoAPI: f.ArgoAPI, Audit: h.Audit, ReadOnly: h.ReadOnly, DryRun: h.DryRun}
	a = &agent.Agent{
		Store: f.Store, Exec: exec, Contexts: names, Interval: h.Interval,
		MetricsAddr: h.MetricsAddr, ProbeAddr: h.ProbeAddr, UnitNames: h.UnitNames, Log: h.Log,
		MetricsTLS: h.MetricsTLS, MetricsGuard: h.MetricsGuard,
		// Change requests are planned on the Kubernetes route, and sent there.
		RequestExec:      &actions.Executor{Cluster: f.Cluster, Audit: h.Audit, ReadOnly: h.ReadOnly, DryRun: h.DryRun},
		RequestNamespace: h.Namespace,
	}
	if len(h.Rules) > 0 {
		a.Policies = &policy.Engine{Rules: h.Rules, Exec: exec, Log: h.Log,
			Ops:     &stackops.Ops{Cluster: f.Cluster, Programs: h.Config.Stacks, Audit: h.Audit, ReadOnly: h.ReadOnly, DryRun: h.DryRun},
			DryExec: &actions.Executor{Cluster: f.Cluster, ArgoAPI: f.ArgoAPI, Audit: h.Audit, ReadOnly: h.ReadOnly, DryRun: true},
			DryOps:  &stackops.Ops{Cluster: f.Cluster, Programs: h.Config.Stacks, Audit: h.Audit, ReadOnly: h.ReadOnly, DryRun: true}}
	}
	if d := h.Config.DriftChecks; d != nil {
		a.DriftChecks = driftSchedule(d, f, h)
	}
	if len(h.Roots) > 0 {
		a.RootRequests = &rootreq.Sender{Find: f.Root, Audit: h.Audit, Reread: f.RereadRoot, LockWait: rootRequestLockWait}
		if d := h.Config.RootPlans; d != nil {
			a.RootPlans = rootPlanSchedule(d, f, h)
		}
	}
	if l := h.Lease; l != nil {
		for _, c := range h.Clusters {
			a.Elections = append(a.Elections, &agent.Election{Context: c.Context, Client: c.Kube, Namespace: l.Namespace,
				Name: l.Name, Identity: l.Identity, LeaseDuration: l.Duration})
		}
	}
	done, err = a.Run(ctx)
	if err == nil {
		go residency.Settle(ctx, func() bool { return f.Store.FirstListsIn(len(names)) })
	}
	return a, done, err
}
