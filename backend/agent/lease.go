package agent

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/driftdeck/driftdeck/backend/model"
)

// The Lease the agents hold, by default. Every agent's Lease, whatever its
// namespace and name (--leader-election-namespace, --leader-election-id),
// carries LeaseLabel: `status` and the TUI list Leases by it (Find).
const (
	DefaultLeaseNamespace = "driftdeck-system"
	DefaultLeaseName      = "driftdeck-agent"
	LeaseLabel            = "driftdeck.io/agent"
)

// Election is leader election on a coordination/v1 Lease: only the holder
// writes to the context the Lease guards; every replica serves metrics.
type Election struct {
	// Context is the context whose writes the Lease guards; Client is that
	// context's cluster, where the Lease lives.
	Context   string
	Client    kubernetes.Interface
	Namespace string
	Name      string
	// Identity names this replica in the Lease (pod name, or host and pid).
	Identity string
	// LeaseDuration is how long a lease not renewed stays held (15s by
	// default, as controller-runtime); RenewDeadline and RetryPeriod follow
	// it (2/3 and 1/7 of it).
	LeaseDuration time.Duration
}

// run campaigns until ctx ends; lead runs while this replica holds the
// Lease, with a context cancelled when it loses it, and a replica that lost
// it campaigns again. attempt is told, after each try to take or renew the
// Lease, how it went (nil: taken, renewed, or held by another live
// replica); lost, each time this replica stops holding it while ctx goes
// on. On ctx's end the Lease is released, so that another replica takes
// over at once.
func (e Election) run(ctx context.Context, lead func(ctx context.Context), attempt func(error), lost func()) error {
	ld := e.leaseDuration()
	lock := &reportingLock{
		Interface: &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: e.Namespace, Name: e.Name},
			Client:     e.Client.CoordinationV1(),
			LockConfig: resourcelock.ResourceLockConfig{Identity: e.Identity},
			Labels:     map[string]string{LeaseLabel: "true"},
		},
		// Releasing the Lease on the way out is no attempt to tell of.
		report: func(err error) {
			if ctx.Err() == nil {
				attempt(err)
			}
		},
		leaseDuration: ld,
		now:           time.Now,
	}
	for ctx.Err() == nil {
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock:            lock,
			LeaseDuration:   ld,
			RenewDeadline:   ld * 2 / 3,
			RetryPeriod:     e.retryPeriod(),
			ReleaseOnCancel: true,
			Name:            e.Name,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: lead,
				OnStoppedLeading: func() {},
			},
		})
		if err != nil {
			return err
		}
		// client-go's Run returns once the Lease is lost (a renewal that
		// failed past its deadline): without a new campaign this replica
		// would stay idle for good.
		le.Run(ctx)
		if ctx.Err() == nil {
			lost()
		}
	}
	return nil
}

func (e Election) leaseDuration() time.Duration {
	if e.LeaseDuration <= 0 {
		return 15 * time.Second
	}
	return e.LeaseDuration
}

// retryPeriod is how often a replica tries to take the Lease.
func (e Election) retryPeriod() time.Duration {
	return max(e.leaseDuration()/7, 100*time.Millisecond)
}

// retryEvery is the retry period in words, rounded to the millisecond.
func (e Election) retryEvery() string {
	return e.retryPeriod().Round(time.Millisecond).String()
}

// Running reads the agents' Lease and says whether one holds it and keeps
// renewing it: the signal `status` and the TUI use to say who will end a
// pause ("resumes 14:30 by the agent") or that nothing will.
func Running(ctx context.Context, c kubernetes.Interface, namespace, name string, now time.Time) model.AgentPresence {
	l, err := c.CoordinationV1().Leases(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return model.AgentPresence{}
	}
	if err != nil {
		return model.AgentPresence{Unknown: fmt.Sprintf("could not read Lease %s/%s: %v", namespace, name, err)}
	}
	return presenceOf(l, now)
}

// Find says whether an agent holds a Lease in the cluster: any Lease
// labelled LeaseLabel, in any namespace, under any name; the one renewed
// last when several are. Who may not list Leases everywhere learns it from
// the default Lease alone, and is told so when that one does not exist.
func Find(ctx context.Context, c kubernetes.Interface, now time.Time) model.AgentPresence {
	l, err := c.CoordinationV1().Leases(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: LeaseLabel + "=true"})
	if err != nil {
		p := Running(ctx, c, DefaultLeaseNamespace, DefaultLeaseName, now)
		if !p.Running && p.Unknown == "" {
			p.Unknown = fmt.Sprintf("could not list the agents' Leases (%v) and %s/%s does not exist", err, DefaultLeaseNamespace, DefaultLeaseName)
		}
		return p
	}
	best := model.AgentPresence{}
	for i := range l.Items {
		p := presenceOf(&l.Items[i], now)
		if (p.Running && !best.Running) || (p.Running == best.Running && p.Renewed.After(best.Renewed)) {
			best = p
		}
	}
	if !best.Running {
		// An agent from before the label holds the default Lease unlabelled
		// until its first renewal by a newer one.
		if d := Running(ctx, c, DefaultLeaseNamespace, DefaultLeaseName, now); d.Running {
			return d
		}
		best.Blocked = blocked(ctx, c, now)
	}
	return best
}

func presenceOf(l *coordinationv1.Lease, now time.Time) model.AgentPresence {
	p := model.AgentPresence{}
	if l.Spec.HolderIdentity != nil {
		p.Holder = *l.Spec.HolderIdentity
	}
	if l.Spec.RenewTime != nil {
		p.Renewed = l.Spec.RenewTime.Time
	}
	d := 15 * time.Second
	if l.Spec.LeaseDurationSeconds != nil {
		d = time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
	}
	p.Running = p.Holder != "" && !p.Renewed.IsZero() && now.Sub(p.Renewed) <= d
	return p
}
