package changereq

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/model"
)

// RootSender applies an approved request of a root module: it plans the
// module again and applies that plan only when it is the one stored
// (*RootChanged when not, nothing applied).
type RootSender interface {
	Reads(k model.Key) bool
	Send(ctx context.Context, cr *ChangeRequest, approval string) (summary string, err error)
}

// RootChanged is a root module whose plan now is not the one stored in its
// request: nothing was applied.
type RootChanged struct{ What []string }

func (e *RootChanged) Error() string {
	return "the module's plan is not the one approved: " + strings.Join(e.What, "; ")
}

// rootWork is what an Applier does with root modules' requests beside its
// passes: a plan and apply take minutes (a real apply, tens), which the
// agent's other duties (pauses ending on time) do not wait for.
type rootWork struct {
	mu      sync.Mutex
	running map[string]bool
	// leftAlone are the requests said to be left to another agent, so that
	// each is said once.
	leftAlone map[string]bool
	wg        sync.WaitGroup
}

func (w *rootWork) isRunning(ref string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.running[ref]
}

// Wait returns once the root modules' requests this Applier started
// applying are closed.
func (a *Applier) Wait() { a.roots.wg.Wait() }

// applyRoot sends a claimed request of a root module in the background,
// renewing the claim while the module's plan and apply run, and records
// the outcome.
func (a *Applier) applyRoot(ctx context.Context, cr *ChangeRequest, req actions.Request, claimed time.Time) {
	w := &a.roots
	w.mu.Lock()
	if w.running == nil {
		w.running = map[string]bool{}
	}
	w.running[cr.Ref()] = true
	w.mu.Unlock()
	w.wg.Add(1)
	go func() {
		defer func() {
			w.mu.Lock()
			delete(w.running, cr.Ref())
			w.mu.Unlock()
			w.wg.Done()
		}()
		type sent struct {
			summary string
			err     error
		}
		done := make(chan sent, 1)
		go func() {
			summary, err := a.Roots.Send(ctx, cr, req.Approval)
			done <- sent{summary, err}
		}()
		renew := time.NewTicker(claimTimeout / 4)
		defer renew.Stop()
		for {
			select {
			case s := <-done:
				if err := a.outcome(ctx, cr, req, claimed, Status{Phase: Applied, Why: "applied as approved: " + s.summary}, s.err); err != nil {
					a.logf("change request %s in context %s: %v", cr.Ref(), a.Context, err)
				}
				return
			case <-renew.C:
				at := a.now().UTC().Truncate(time.Second)
				next, err := a.writeStatus(ctx, cr, Status{Phase: Applying, Why: "approved: the agent plans and applies the module", ClaimedAt: &at})
				if err != nil {
					a.logf("change request %s: renewing the claim while it is applied: %v", cr.Ref(), err)
					continue
				}
				cr = next
			}
		}
	}()
}

// leaveAlone says once that an approved request of a root module this
// agent does not read waits for one that does.
func (a *Applier) leaveAlone(cr *ChangeRequest, k model.Key) {
	w := &a.roots
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.leftAlone[cr.Ref()] {
		return
	}
	if w.leftAlone == nil {
		w.leftAlone = map[string]bool{}
	}
	w.leftAlone[cr.Ref()] = true
	a.logf("change request %s in context %s is approved for %s, a root module this agent does not read (config roots): left to an agent that does", cr.Ref(), a.Context, k.Ref())
}
