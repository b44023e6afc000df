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
	// StackDeadLock: a Stack failing on a state lock that is itself older
	// than After and whose holder is gone (a pid of this host that no
	// longer runs, or, for another host, a Stack the operator runs nothing
	// for): break the lock, then re-request a run. Pulumi Cloud cancels
	// only with AllowCloudCancel.
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
	// AllowCloudCancel: a stack-dead-lock rule may cancel a Pulumi Cloud
	// update (the service cannot say whether its client still runs).
	AllowCloudCancel bool
}

// FromConfig checks the config file's policies.
func FromConfig(ps []config.Policy) ([]Rule, error) {
	var out []Rule
	seen := map[string]bool{}
	for i, p := range ps {
		r := Rule{Name: strings.TrimSpace(p.Name), When: Trigger(p.When), After: time.Duration(p.After), DryRun: p.DryRun,
			MaxAttempts: p.MaxAttempts, MaxPerHour: p.MaxPerHour, AllowCloudCancel: p.AllowCloudCancel}
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
		case r.AllowCloudCancel && r.When != StackDeadLock:
			return nil, fmt.Errorf("policy %s: allowCloudCancel applies to %s policies only", r.Name, StackDeadLock)
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

	mu sync.Mutex
	// attempts counts what this process tried, dry-run rules included (they
	// write no annotation); the unit's annotation counts across restarts
	// and replicas. The larger of the two holds.
	attempts map[ruleUnit]int
	recent   map[string][]time.Time // per rule, remediations of the last hour
	resync   map[ruleUnit]bool      // terminated, waiting to sync again
	said     map[ruleUnit]string    // the topic of the last hold-back said per unit: said once
	once     sync.Once
	done     *prometheus.CounterVec
}

type ruleUnit struct {
	rule string
	key  model.Key
}

func (e *Engine) init() {
	e.once.Do(func() {
		e.attempts, e.recent, e.resync, e.said = map[ruleUnit]int{}, map[string][]time.Time{}, map[ruleUnit]bool{}, map[ruleUnit]string{}
		e.done = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "driftdeck_remediations_total",
			Help: "Remediations by policy and outcome (done, dry-run, refused, failed; limited: held back by maxPerHour; exhausted: a unit reached maxAttempts, once per unit; waiting: a lock not yet old or dead enough, once per lock).",
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
			e.remediate(ctx, r, u, now)
		}
	}
}

func (e *Engine) remediate(ctx context.Context, r Rule, u *model.Unit, now time.Time) {
	ru := ruleUnit{r.Name, u.Key}
	if healthy(r, u) {
		e.reset(ctx, r, u)
		return
	}
	if r.When == ArgoHookStuck && e.pendingResync(ru) {
		e.syncAgain(ctx, r, u)
		return
	}
	why, ok := matches(r, u, now)
	if !ok {
		return // not over either: the count holds until the unit is healthy
	}
	recs, err := records(u)
	if err != nil {
		e.holdBack(r, ru, "exhausted", "unreadable", err.Error())
		return
	}
	n := max(recs[r.Name].Attempts, e.tried(ru))
	if n >= r.MaxAttempts {
		e.holdBack(r, ru, "exhausted", "exhausted", fmt.Sprintf("%d of %d attempts made (annotation %s): nothing more is written until it is healthy again; a person must look",
			n, r.MaxAttempts, model.AnnotationRemediationAttempts))
		return
	}
	if !e.perHour(r, now) {
		return
	}
	rec := &record{Attempts: n + 1, Max: r.MaxAttempts, Last: now.UTC().Truncate(time.Second)}
	e.act(ctx, r, u, why, recordUpdate(u, recs, r.Name, rec), now)
}

// matches says whether the rule's situation holds for the unit, and in words.
func matches(r Rule, u *model.Unit, now time.Time) (string, bool) {
	switch r.When {
	case StackDeadLock:
		// How long the lock is held, and whether its holder is gone, is read
		// from the state backend (lockVerdict): the Stack's own failing time
		// says nothing about the lock.
		s := u.Stack
		if s != nil && (u.Run == model.Stuck || u.Run == model.Failed) && pulumiop.LockConflict(s.LastMessage) {
			return "failing on a state lock", true
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

// tried is how many attempts this process made on the unit.
func (e *Engine) tried(ru ruleUnit) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.attempts[ru]
}

// perHour applies the rule's hourly limit, counting the remediation when
// it may go.
func (e *Engine) perHour(r Rule, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
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
	e.recent[r.Name] = append(last, now)
	return true
}

// holdBack says once per unit and topic why the rule writes nothing, in
// the log and the outcome counter.
func (e *Engine) holdBack(r Rule, ru ruleUnit, outcome, topic, why string) {
	e.mu.Lock()
	said := e.said[ru] == topic
	e.said[ru] = topic
	e.mu.Unlock()
	if !said {
		e.done.WithLabelValues(r.Name, outcome).Inc()
		e.logf("%s %s: policy %s: %s", outcome, ru.key, r.Name, why)
	}
}

// reset starts the rule's count on a unit that is healthy again, and
// removes the rule's entry from the unit's annotation.
func (e *Engine) reset(ctx context.Context, r Rule, u *model.Unit) {
	ru := ruleUnit{r.Name, u.Key}
	e.mu.Lock()
	delete(e.attempts, ru)
	delete(e.said, ru)
	delete(e.resync, ru)
	e.mu.Unlock()
	recs, err := records(u)
	if _, counted := recs[r.Name]; err != nil || !counted || r.DryRun {
		return
	}
	reason := Reason(r, "healthy again: its attempts count from zero")
	err = e.Exec.Annotate(ctx, u.Key, "reset-attempts", reason, recordUpdate(u, recs, r.Name, nil))
	e.report(r, u.Key, reason, err)
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

func (e *Engine) act(ctx context.Context, r Rule, u *model.Unit, why string, count map[string]actions.AnnotationUpdate, now time.Time) {
	exec, ops := e.writers(r)
	ru := ruleUnit{r.Name, u.Key}
	var err error
	reason := Reason(r, why)
	switch r.When {
	case StackDeadLock:
		var plan *stackops.Unstick
		var v verdict
		plan, v, err = e.planBreak(ctx, r, u, ops, now)
		if plan == nil && err == nil {
			e.holdBack(r, ru, "waiting", v.topic, v.why)
			return
		}
		reason = Reason(r, v.why)
		if err == nil {
			e.count(r, ru)
			if _, err = ops.Apply(ctx, plan, reason); err == nil {
				_, err = exec.Execute(ctx, actions.Request{Kind: actions.Retry, Key: u.Key, Reason: reason, Annotate: count})
			}
		}
	case UpdateProgressing:
		e.count(r, ru)
		_, err = exec.Execute(ctx, actions.Request{Kind: actions.Retry, Key: u.Key, Reason: reason, Annotate: count})
	case ArgoHookStuck:
		e.count(r, ru)
		_, err = exec.Execute(ctx, actions.Request{Kind: actions.Terminate, Key: u.Key, Reason: reason, Annotate: count})
		if err == nil && !r.DryRun {
			e.mu.Lock()
			e.resync[ru] = true
			e.mu.Unlock()
		}
	}
	e.report(r, u.Key, reason, err)
}

// count records an attempt of this process on the unit.
func (e *Engine) count(r Rule, ru ruleUnit) {
	e.mu.Lock()
	e.attempts[ru]++
	last := e.attempts[ru] == r.MaxAttempts
	e.mu.Unlock()
	if last {
		e.logf("policy %s: last attempt (%d) on %s; after it a person must look", r.Name, r.MaxAttempts, ru.key)
	}
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
