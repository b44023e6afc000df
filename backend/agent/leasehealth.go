package agent

import (
	"context"
	"errors"
	"net"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/driftdeck/driftdeck/backend/safetext"
)

// leaseTrouble is one context's Lease while this replica cannot take or
// renew it: the last error, since when, and what was told of it.
type leaseTrouble struct {
	err      error
	reason   string
	since    time.Time
	failures int
	// logged is when the last line about it was written; unlogged counts
	// the failed attempts since.
	logged   time.Time
	unlogged int
	event    blockedEvent
}

// why is the trouble in words, for /readyz and the log.
func (l *leaseTrouble) why(e *Election) string {
	return "not leading: cannot take Lease " + e.Namespace + "/" + e.Name + ": " + safetext.Visible(l.err.Error())
}

// leaseReason sorts a Lease error into few words: the reason label of the
// lease error metrics, whose cardinality must stay bounded.
func leaseReason(err error) string {
	var st apierrors.APIStatus
	switch {
	case apierrors.IsNotFound(err) && errors.As(err, &st) && st.Status().Details != nil && st.Status().Details.Kind == "namespaces":
		return "namespace_not_found"
	case apierrors.IsForbidden(err):
		return "forbidden"
	case apierrors.IsUnauthorized(err):
		return "unauthorized"
	case apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err):
		return "conflict"
	case apierrors.IsInvalid(err):
		return "invalid"
	case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case apierrors.IsTooManyRequests(err):
		return "throttled"
	case isNetError(err):
		return "unreachable"
	}
	return "other"
}

func isNetError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &oe) || errors.As(err, &ne)
}

// leaseAttempt records how a try to take or renew a context's Lease went
// (nil: fine). A failure is logged at once, then at most once per lease
// duration while it lasts, each line counting the attempts since the last;
// /readyz and the metrics say it, and an Event tells `status` and the TUI
// that an agent runs but cannot write.
func (a *Agent) leaseAttempt(ctx context.Context, e *Election, err error) {
	now := time.Now()
	a.mu.Lock()
	if a.leaseTroubles == nil {
		a.leaseTroubles = map[string]*leaseTrouble{}
	}
	l := a.leaseTroubles[e.Context]
	if err == nil {
		if l != nil {
			delete(a.leaseTroubles, e.Context)
			a.leaseFailing.DeleteLabelValues(e.Context, l.reason)
		}
		a.mu.Unlock()
		if l != nil {
			a.logf("context %s: Lease %s/%s answers again, after %d failed attempts since %s", e.Context, e.Namespace, e.Name, l.failures, l.since.UTC().Format(time.RFC3339))
		}
		return
	}
	reason := leaseReason(err)
	a.leaseErrors.WithLabelValues(e.Context, reason).Inc()
	line := ""
	switch {
	case l == nil || l.reason != reason:
		if l != nil {
			a.leaseFailing.DeleteLabelValues(e.Context, l.reason)
		}
		l = &leaseTrouble{err: err, reason: reason, since: now, event: blockedEventOf(l)}
		a.leaseTroubles[e.Context] = l
		line = "context " + e.Context + ": " + l.why(e) + " (retrying every " + e.retryEvery() + ")"
		l.logged = now
	default:
		l.err = err
		l.unlogged++
		if now.Sub(l.logged) >= e.leaseDuration() {
			line = "context " + e.Context + ": still " + l.why(e) + " (" + plural(l.unlogged, "more failed attempt") + " since " + l.logged.UTC().Format(time.RFC3339) + ", retrying every " + e.retryEvery() + ")"
			l.logged, l.unlogged = now, 0
		}
	}
	l.failures++
	a.leaseFailing.WithLabelValues(e.Context, reason).Set(1)
	ev, due := l.event, l.event.due(now)
	a.mu.Unlock()
	if line != "" {
		a.logf("%s", line)
	}
	if due {
		before := ev.err
		ev = ev.record(ctx, e, err, now)
		a.mu.Lock()
		l.event = ev
		a.mu.Unlock()
		if ev.err != nil && (before == nil || before.Error() != ev.err.Error()) {
			a.logf("context %s: `driftdeck status` cannot learn it either: recording Event %s failed: %s", e.Context, CannotTakeLeaseReason, safetext.Visible(ev.err.Error()))
		}
	}
}

// leaseLost records that this replica stopped holding a context's Lease
// while it runs on: it campaigns again.
func (a *Agent) leaseLost(e *Election) {
	a.logf("context %s: lost Lease %s/%s (not renewed within %s): campaigning for it again", e.Context, e.Namespace, e.Name, e.leaseDuration()*2/3)
}

// leaseTroubleOf is why this replica cannot lead the context, "" when
// nothing keeps it from doing so.
func (a *Agent) leaseTroubleOf(name string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range a.Elections {
		if l := a.leaseTroubles[name]; e.Context == name && l != nil {
			return l.why(e)
		}
	}
	return ""
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
