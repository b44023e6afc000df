// Package policy is the agent's opt-in remediation: rules from the config
// file's policies: section, each naming a situation, how long it must last,
// and limits (attempts per unit, remediations per hour). Every remediation
// goes through the one write path (actions.Executor, stackops.Ops), so it is
// guarded, audited and announced by an Event like a person's write, with the
// policy's name in the reason; a dry-run rule writes nothing and says what it
// would have done.
package policy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/driftdeck/driftdeck/backend/actions"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/stackops"
)

// Trigger names a situation a rule remedies.
type Trigger string

const (
	// StackDeadLock: a Stack failing on a state lock held longer than
	// After: break the lock (refused while its holder runs on this host),
	// then re-request a run.
	StackDeadLock Trigger = "stack-dead-lock"
	// UpdateProgressing: a Stack's run Progressing longer than After:
	// re-request a run.
	UpdateProgressing Trigger = "update-progressing"
	// ArgoHookStuck: an Argo CD operation Running on a hook longer than
	// After: terminate it, then, once it ended, sync again.
	ArgoHookStuck Trigger = "argo-hook-stuck"
)

// Rule is one configured policy.
type Rule struct {
	Name        string
	When        Trigger
	After       time.Duration
	DryRun      bool
	MaxAttempts int
	MaxPerHour  int
}

// FromConfig checks the config file's policies.
func FromConfig(ps []config.Policy) ([]Rule, error) {
	var out []Rule
	seen := map[string]bool{}
	for i, p := range ps {
		r := Rule{Name: strings.TrimSpace(p.Name), When: Trigger(p.When), After: time.Duration(p.After), DryRun: p.DryRun,
			MaxAttempts: p.MaxAttempts, MaxPerHour: p.MaxPerHour}
		switch {
		case r.Name == "":
			return nil, fmt.Errorf("policies[%d]: a name is required (it goes into every Event and audit line)", i)
		case seen[r.Name]:
			return nil, fmt.Errorf("policies[%d]: name %q used twice", i, r.Name)
		case r.When != StackDeadLock && r.When != UpdateProgressing && r.When != ArgoHookStuck:
			return nil, fmt.Errorf("policy %s: when %q: want %s, %s or %s", r.Name, p.When, StackDeadLock, UpdateProgressing, ArgoHookStuck)
		case r.After <= 0:
			return nil, fmt.Errorf("policy %s: after: want how long the situation must last, e.g. 15m", r.Name)
		case r.MaxAttempts < 0 || r.MaxPerHour < 0:
			return nil, fmt.Errorf("policy %s: maxAttempts and maxPerHour cannot be negative", r.Name)
		}
		if r.MaxAttempts == 0 {
			r.MaxAttempts = 3
		}
		if r.MaxPerHour == 0 {
			r.MaxPerHour = 5
		}
		seen[r.Name] = true
		out = append(out, r)
	}
	return out, nil
}

// Engine runs the rules on the leader's passes.
type Engine struct {
	Rules []Rule
	// Exec and Ops write; DryExec and DryOps are the same write path in
	// dry-run, for dry-run rules.
	Exec, DryExec *actions.Executor
	Ops, DryOps   *stackops.Ops
	Log           io.Writer
	Now           func() time.Time

	mu       sync.Mutex
	attempts map[ruleUnit]int
	recent   map[string][]time.Time // per rule, remediations of the last hour
	resync   map[ruleUnit]bool      // terminated, waiting to sync again
	once     sync.Once
	done     *prometheus.CounterVec
}

type ruleUnit struct {
	rule string
	key  model.Key
}

func (e *Engine) init() {
	e.once.Do(func() {
		e.attempts, e.recent, e.resync = map[ruleUnit]int{}, map[string][]time.Time{}, map[ruleUnit]bool{}
		e.done = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "driftdeck_remediations_total",
			Help: "Remediations by policy and outcome (done, dry-run, refused, failed, limited: held back by maxAttempts or maxPerHour).",
		}, []string{"policy", "outcome"})
	})
}

// Describe and Collect make the engine's counters part of /metrics.
func (e *Engine) Describe(ch chan<- *prometheus.Desc) { e.init(); e.done.Describe(ch) }
func (e *Engine) Collect(ch chan<- prometheus.Metric) { e.init(); e.done.Collect(ch) }

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Engine) logf(format string, args ...any) {
	if e.Log != nil {
		fmt.Fprintf(e.Log, time.Now().UTC().Format(time.RFC3339)+" "+format+"\n", args...)
	}
}

// Remediate runs every rule on the units once.
func (e *Engine) Remediate(ctx context.Context, units []*model.Unit) {
	e.init()
	now := e.now()
	for _, r := range e.Rules {
		for _, u := range units {
			if ctx.Err() != nil {
				return
			}
			ru := ruleUnit{r.Name, u.Key}
			if r.When == ArgoHookStuck && e.pendingResync(ru) {
				e.syncAgain(ctx, r, u)
				continue
			}
			why, ok := matches(r, u, now)
			if !ok {
				e.forget(ru)
				continue
			}
			if !e.allowed(r, ru, now) {
				continue
			}
			e.act(ctx, r, u, why)
		}
	}
}

// matches says whether the rule's situation holds for the unit, and in words.
func matches(r Rule, u *model.Unit, now time.Time) (string, bool) {
	switch r.When {
	case StackDeadLock:
		s := u.Stack
		if s == nil || (u.Run != model.Stuck && u.Run != model.Failed) || !pulumiop.LockConflict(s.LastMessage) || u.RunSince.IsZero() {
			return "", false
		}
		if d := now.Sub(u.RunSince); d > r.After {
			return fmt.Sprintf("failing on a state lock for %s, longer than %s", model.HumanDuration(d), model.HumanDuration(r.After)), true
		}
	case UpdateProgressing:
		if u.Stack == nil || u.Observed != model.Running || u.Queued || u.RunSince.IsZero() {
			return "", false
		}
		if d := now.Sub(u.RunSince); d > r.After {
			return fmt.Sprintf("run Progressing for %s, longer than %s", model.HumanDuration(d), model.HumanDuration(r.After)), true
		}
	case ArgoHookStuck:
		a := u.Argo
		if a == nil || a.Phase != "Running" || !a.OperationSet || a.StartedAt.IsZero() || !strings.Contains(strings.ToLower(a.PhaseMessage), "hook") {
			return "", false
		}
		if d := now.Sub(a.StartedAt); d > r.After {
			return fmt.Sprintf("operation Running on a hook for %s, longer than %s", model.HumanDuration(d), model.HumanDuration(r.After)), true
		}
	}
	return "", false
}

// allowed applies the rule's limits, counting the attempt when it may go.
func (e *Engine) allowed(r Rule, ru ruleUnit, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.attempts[ru] >= r.MaxAttempts {
		return false // said once, when the limit was reached
	}
	var last []time.Time
	for _, t := range e.recent[r.Name] {
		if now.Sub(t) < time.Hour {
			last = append(last, t)
		}
	}
	e.recent[r.Name] = last
	if len(last) >= r.MaxPerHour {
		e.done.WithLabelValues(r.Name, "limited").Inc()
		return false
	}
	e.attempts[ru]++
	e.recent[r.Name] = append(last, now)
	if e.attempts[ru] == r.MaxAttempts {
		e.logf("policy %s: last attempt (%d) on %s; after it a person must look", r.Name, r.MaxAttempts, ru.key)
	}
	return true
}

// forget resets a unit's attempts once its situation is over.
func (e *Engine) forget(ru ruleUnit) {
	e.mu.Lock()
	delete(e.attempts, ru)
	e.mu.Unlock()
}

func (e *Engine) pendingResync(ru ruleUnit) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.resync[ru]
}

func (e *Engine) writers(r Rule) (*actions.Executor, *stackops.Ops) {
	if r.DryRun {
		return e.DryExec, e.DryOps
	}
	return e.Exec, e.Ops
}

// Reason is what a remediation's Event and audit line say.
func Reason(r Rule, why string) string { return "policy " + r.Name + ": " + why }

func (e *Engine) act(ctx context.Context, r Rule, u *model.Unit, why string) {
	exec, ops := e.writers(r)
	reason := Reason(r, why)
	var err error
	switch r.When {
	case StackDeadLock:
		err = e.breakLock(ctx, ops, u.Key, reason)
		if err == nil {
			_, err = exec.Execute(ctx, actions.Request{Kind: actions.Retry, Key: u.Key, Reason: reason})
		}
	case UpdateProgressing:
		_, err = exec.Execute(ctx, actions.Request{Kind: actions.Retry, Key: u.Key, Reason: reason})
	case ArgoHookStuck:
		_, err = exec.Execute(ctx, actions.Request{Kind: actions.Terminate, Key: u.Key, Reason: reason})
		if err == nil && !r.DryRun {
			e.mu.Lock()
			e.resync[ruleUnit{r.Name, u.Key}] = true
			e.mu.Unlock()
		}
	}
	e.report(r, u.Key, reason, err)
}

func (e *Engine) breakLock(ctx context.Context, ops *stackops.Ops, k model.Key, reason string) error {
	plan, err := ops.PlanUnstick(ctx, k, false, false)
	if err != nil {
		return err
	}
	_, err = ops.Apply(ctx, plan, reason)
	return err
}

// syncAgain syncs an app whose hook-stuck operation the rule terminated,
// once the operation has ended.
func (e *Engine) syncAgain(ctx context.Context, r Rule, u *model.Unit) {
	if u.Argo == nil || u.Argo.OperationSet || u.Argo.Phase == "Running" || u.Argo.Phase == "Terminating" {
		return
	}
	exec, _ := e.writers(r)
	reason := Reason(r, "sync again after terminating the operation stuck on a hook")
	_, err := exec.Execute(ctx, actions.Request{Kind: actions.Sync, Key: u.Key, Reason: reason})
	e.mu.Lock()
	delete(e.resync, ruleUnit{r.Name, u.Key})
	e.mu.Unlock()
	e.report(r, u.Key, reason, err)
}

func (e *Engine) report(r Rule, k model.Key, reason string, err error) {
	var ref *actions.Refusal
	outcome := "done"
	switch {
	case err == nil && r.DryRun:
		outcome = "dry-run"
	case err == nil:
	case errors.As(err, &ref) || errors.Is(err, actions.ErrReadOnly):
		outcome = "refused"
	default:
		outcome = "failed"
	}
	e.done.WithLabelValues(r.Name, outcome).Inc()
	if err != nil {
		e.logf("%s %s: %s (%v)", outcome, k, reason, err)
		return
	}
	e.logf("%s %s: %s", outcome, k, reason)
}
