package agent

import (
	"bytes"
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// reportingLock is the Lease lock of client-go's leader election, telling
// how each try to take or renew the Lease went: client-go retries a Lease
// it cannot take (its namespace missing, forbidden, ...) quietly, logging
// only through klog, which driftdeck silences.
//
// report gets nil when the Lease was created or written, or is held by
// another live replica (a follower: nothing wrong); the error otherwise.
type reportingLock struct {
	resourcelock.Interface
	report        func(error)
	leaseDuration time.Duration
	now           func() time.Time

	// slowPath: a Get read the Lease and client-go writes it next. An Update
	// without a Get before it is the leader's optimistic renewal: when that
	// fails, client-go reads the Lease and tries again at once, and that
	// try's outcome is the one to tell.
	slowPath bool
	// observed and observedAt are the Lease as last read and when it
	// changed: client-go counts another holder's Lease as live for the
	// lease duration after it last saw it change, whatever the clocks say.
	observed   []byte
	observedAt time.Time
}

func (l *reportingLock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	rec, raw, err := l.Interface.Get(ctx)
	l.slowPath = false
	switch {
	case apierrors.IsNotFound(err):
		// Create comes next and tells.
	case err != nil:
		l.report(err)
	default:
		now := l.now()
		if !bytes.Equal(raw, l.observed) {
			l.observed, l.observedAt = raw, now
		}
		if rec.HolderIdentity != "" && rec.HolderIdentity != l.Identity() && now.Before(l.observedAt.Add(l.leaseDuration)) {
			l.report(nil)
			return rec, raw, err
		}
		l.slowPath = true
	}
	return rec, raw, err
}

func (l *reportingLock) Create(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	err := l.Interface.Create(ctx, r)
	l.report(err)
	return err
}

func (l *reportingLock) Update(ctx context.Context, r resourcelock.LeaderElectionRecord) error {
	err := l.Interface.Update(ctx, r)
	if l.slowPath || err == nil {
		l.report(err)
	}
	l.slowPath = false
	return err
}
