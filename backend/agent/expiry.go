package agent

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// ExpiredReason is the reason the agent gives when it ends a pause: the
// pause's own reason, quoted, so the audit log and the Event say which
// pause ended and why it had been made.
func ExpiredReason(p *model.PauseRecord) string { return "expired pause: " + p.Reason }

// resumeBook remembers the pauses the agent tried to end, so that a refused
// resume (the policy changed since the pause) is not tried again on every
// pass, and a failed one only after a while.
type resumeBook struct {
	mu    sync.Mutex
	tried map[pauseID]attempt
}

type pauseID struct {
	key model.Key
	at  time.Time
}

type attempt struct {
	at      time.Time
	refused bool
}

// retryAfter is how long a failed (not refused) resume waits for another try.
const retryAfter = time.Minute

func (b *resumeBook) due(id pauseID, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.tried[id]
	return !ok || (!a.refused && now.Sub(a.at) >= retryAfter)
}

func (b *resumeBook) record(id pauseID, now time.Time, refused bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tried == nil {
		b.tried = map[pauseID]attempt{}
	}
	b.tried[id] = attempt{at: now, refused: refused}
}

// resumeExpired ends every pause whose expiry has passed, through the write
// path: the resume restores exactly what the pause recorded (or is refused
// when the policy changed since), is audited and announced by an Event
// under the agent's identity, with the pause's reason quoted.
func (a *Agent) resumeExpired(ctx context.Context, units []*model.Unit) {
	now := a.now()
	for _, u := range units {
		if ctx.Err() != nil {
			return
		}
		p := u.Pause
		if !p.Expired(now) {
			continue
		}
		id := pauseID{u.Key, p.At}
		if !a.resumed.due(id, now) {
			continue
		}
		res, err := a.Exec.Execute(ctx, actions.Request{Kind: actions.Resume, Key: u.Key, Reason: ExpiredReason(p)})
		var ref *actions.Refusal
		switch {
		case err == nil:
			a.resumes.WithLabelValues("done").Inc()
			a.logf("resumed %s: pause by %s expired at %s (%s)", u.Key, p.By, p.Until.Format(time.RFC3339), p.Reason)
			for _, w := range res.Warnings {
				a.logf("  warning: %s", w)
			}
			a.resumed.record(id, now, false)
		case errors.As(err, &ref) && ref.NothingToDo:
			// Resumed meanwhile (by a person, or a previous leader).
			a.resumed.record(id, now, true)
		case errors.As(err, &ref) || errors.Is(err, actions.ErrReadOnly):
			a.resumes.WithLabelValues("refused").Inc()
			a.logf("not resumed %s: %v", u.Key, err)
			a.resumed.record(id, now, true)
		default:
			a.resumes.WithLabelValues("failed").Inc()
			a.logf("resuming %s failed (trying again in %s): %v", u.Key, retryAfter, err)
			a.resumed.record(id, now, false)
		}
	}
}
