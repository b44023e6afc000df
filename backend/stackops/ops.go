package stackops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/config"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
	"github.com/driftdeck/driftdeck/backend/pulumistate"
)

// Ops runs Pulumi work for the units of a fleet.
type Ops struct {
	Cluster  func(context string) (*kube.Cluster, bool)
	Programs []config.StackProgram
	Audit    *audit.Log
	ReadOnly bool
	// CLI is the pulumi binary; "" finds one (pulumirun.FindCLI).
	CLI string
	Now func() time.Time
}

// ErrReadOnly refuses changes in read-only mode.
var ErrReadOnly = errors.New("driftdeck runs read-only (--read-only): changes are refused")

func (o *Ops) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// State reads the stack's state: last update, resources, pending operations
// and the lock holder.
func (o *Ops) State(ctx context.Context, k model.Key) (*pulumistate.StackInfo, *Location, error) {
	loc, err := o.Locate(ctx, k)
	if err != nil {
		return nil, nil, err
	}
	be, err := pulumistate.Open(ctx, loc.Backend)
	if err != nil {
		return nil, loc, fmt.Errorf("opening the state backend %s: %w", loc.Backend, err)
	}
	defer be.Close()
	info, err := be.Stack(ctx, loc.Ref)
	if err != nil {
		return nil, loc, fmt.Errorf("reading stack %s: %w", loc.Ref, err)
	}
	return &info, loc, nil
}

// Unstick is a planned release of a stack's lock and/or removal of its
// pending operations, described exactly.
type Unstick struct {
	Loc     *Location
	Info    *pulumistate.StackInfo
	Repairs []*pulumistate.Repair
	// ClearPending: after the lock is gone, forget Info.Pending. It is
	// planned then, because the backend refuses to touch a locked stack.
	ClearPending bool
	backend      pulumistate.Backend // the repairs work through it: open until Close
}

// Close releases the connection to the state backend. Apply closes it too.
func (u *Unstick) Close() {
	if u.backend != nil {
		u.backend.Close()
		u.backend = nil
	}
}

// Changes lists every change the unstick makes.
func (u *Unstick) Changes() []string {
	var out []string
	for _, r := range u.Repairs {
		out = append(out, r.Summary)
		for _, c := range r.Changes {
			out = append(out, "  "+c)
		}
	}
	if u.ClearPending {
		out = append(out, fmt.Sprintf("forget %d pending operation(s) of %s, keeping a backup of the state:", len(u.Info.Pending), u.Info.Ref))
		for _, p := range u.Info.Pending {
			out = append(out, "  "+p.Type+" "+p.URN)
		}
	}
	return out
}

// PlanUnstick plans breaking the lock (refused while its holder still runs
// on this host, unless force) and, with clearPending, forgetting pending
// operations.
func (o *Ops) PlanUnstick(ctx context.Context, k model.Key, clearPending, force bool) (*Unstick, error) {
	info, loc, err := o.State(ctx, k)
	if err != nil {
		return nil, err
	}
	be, err := pulumistate.Open(ctx, loc.Backend)
	if err != nil {
		return nil, err
	}
	u := &Unstick{Loc: loc, Info: info, backend: be}
	ok := false
	defer func() {
		if !ok {
			u.Close()
		}
	}()
	if len(info.Locks) > 0 {
		r, err := be.BreakLock(ctx, loc.Ref, force)
		if err != nil && !errors.Is(err, pulumistate.ErrNothingToDo) {
			return nil, err
		}
		if r != nil {
			u.Repairs = append(u.Repairs, r)
		}
	}
	u.ClearPending = clearPending && len(info.Pending) > 0
	if u.ClearPending && len(info.Locks) == 0 {
		// Nothing to unlock first: plan it now, so the plan is exact.
		r, err := be.ClearPending(ctx, loc.Ref)
		if err != nil {
			return nil, err
		}
		u.Repairs, u.ClearPending = append(u.Repairs, r), false
	}
	if len(u.Repairs) == 0 && !u.ClearPending {
		return nil, fmt.Errorf("%s: nothing to unstick (no lock held%s)", k.Ref(), map[bool]string{true: ", no pending operations", false: ""}[clearPending])
	}
	ok = true
	return u, nil
}

// Apply carries out a planned unstick: permission and read-only checks, the
// repairs in order, an Event on the Stack and an audit line.
func (o *Ops) Apply(ctx context.Context, u *Unstick, reason string) error {
	defer u.Close()
	k := u.Loc.Key
	entry := audit.Entry{Time: o.now(), Context: k.Context, Unit: k.Ref(), Action: "unlock", Reason: reason}
	entry.Patch, _ = json.Marshal(u.Changes())
	err := o.guard(ctx, k, reason, &entry)
	if err == nil {
		for _, r := range u.Repairs {
			if err = r.Apply(ctx); err != nil {
				err = fmt.Errorf("%s: %w", r.Summary, err)
				break
			}
		}
	}
	if err == nil && u.ClearPending {
		var r *pulumistate.Repair
		if r, err = u.backend.ClearPending(ctx, u.Loc.Ref); err == nil {
			err = r.Apply(ctx)
		}
		if err != nil {
			err = fmt.Errorf("the lock is broken, but clearing the pending operations failed: %w", err)
		}
	}
	o.finish(ctx, k, &entry, err, "DriftdeckUnlock", "unstuck the state of")
	return err
}

// guard refuses in read-only mode, without a reason, or without permission
// to patch the Stack (whoever may not operate the Stack may not operate its
// state through driftdeck either).
func (o *Ops) guard(ctx context.Context, k model.Key, reason string, entry *audit.Entry) error {
	if o.ReadOnly {
		return ErrReadOnly
	}
	if strings.TrimSpace(reason) == "" {
		return errors.New("a reason is required (it goes into the Event and the audit log)")
	}
	c, ok := o.Cluster(k.Context)
	if !ok {
		return fmt.Errorf("unknown context %q", k.Context)
	}
	actor, err := c.Access.Identity(ctx)
	if err != nil {
		return err
	}
	entry.Actor = actor
	v, err := c.Access.Can(ctx, "patch", pulumiop.Stacks, k.Namespace, "")
	if err != nil {
		return err
	}
	if !v.Allowed {
		return errors.New(v.Reason)
	}
	return nil
}

// finish audits the attempt and, when it succeeded, leaves an Event.
func (o *Ops) finish(ctx context.Context, k model.Key, entry *audit.Entry, err error, reason, verb string) {
	entry.Outcome = "done"
	if err != nil {
		entry.Outcome, entry.Error = "failed", err.Error()
	}
	if o.Audit != nil {
		_ = o.Audit.Append(*entry)
	}
	if err != nil {
		return
	}
	c, ok := o.Cluster(k.Context)
	if !ok {
		return
	}
	now := metav1.NewTime(o.now())
	host, _ := os.Hostname()
	msg := fmt.Sprintf("%s %s %s: %s", entry.Actor, verb, k.Ref(), entry.Reason)
	_, _ = c.Kube.CoreV1().Events(k.Namespace).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: k.Name + ".driftdeck-", Namespace: k.Namespace},
		InvolvedObject: corev1.ObjectReference{APIVersion: "pulumi.com/v1", Kind: "Stack", Namespace: k.Namespace, Name: k.Name},
		Reason:         reason, Message: msg, Type: corev1.EventTypeNormal,
		Source:         corev1.EventSource{Component: "driftdeck", Host: host},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
		ReportingController: "driftdeck.io/driftdeck", ReportingInstance: host,
	}, metav1.CreateOptions{})
}

// Preview runs a preview of the stack's program, streaming every event, and
// saves the plan so that an approval applies exactly what was shown.
func (o *Ops) Preview(ctx context.Context, k model.Key, onEvent func(pulumirun.Event)) (*Reviewed, error) {
	loc, err := o.Locate(ctx, k)
	if err != nil {
		return nil, err
	}
	t, cleanup, err := o.target(ctx, loc)
	if err != nil {
		return nil, err
	}
	planDir, err := os.MkdirTemp("", "driftdeck-plan-")
	if err != nil {
		cleanup()
		return nil, err
	}
	rv := &Reviewed{Loc: loc, target: t, cleanup: func() { cleanup(); os.RemoveAll(planDir) }, PlanPath: filepath.Join(planDir, "plan.json")}
	res, err := pulumirun.Preview(ctx, t, pulumirun.PreviewOptions{PlanPath: rv.PlanPath, OnEvent: onEvent})
	rv.Result = res
	if err != nil {
		rv.Close()
		return nil, err
	}
	return rv, nil
}

// Reviewed is a finished preview with its saved plan.
type Reviewed struct {
	Loc      *Location
	Result   pulumirun.Result
	PlanPath string
	target   pulumirun.Target
	cleanup  func()
}

// Close removes the checkout and the plan.
func (r *Reviewed) Close() {
	if r.cleanup != nil {
		r.cleanup()
		r.cleanup = nil
	}
}

// Approve applies the reviewed plan: `up` bound to the plan, so nothing else
// can be applied; a program or state changed since the preview makes it fail
// before anything else happens. Only Stacks mapped to a local program are
// applied this way: the operator applies the others, approved by moving
// spec.commit (actions.Approve).
func (o *Ops) Approve(ctx context.Context, r *Reviewed, reason string, onEvent func(pulumirun.Event)) (pulumirun.Result, error) {
	k := r.Loc.Key
	entry := audit.Entry{Time: o.now(), Context: k.Context, Unit: k.Ref(), Action: "apply-plan", Reason: reason}
	err := o.guard(ctx, k, reason, &entry)
	if err == nil && r.Loc.Local == nil {
		err = fmt.Errorf("%s is run by the Pulumi operator: approve its pending commit (driftdeck approve) instead of applying from this machine", k.Ref())
	}
	var res pulumirun.Result
	if err == nil {
		res, err = pulumirun.ApplyPlan(ctx, r.target, r.PlanPath, onEvent)
	}
	o.finish(ctx, k, &entry, err, "DriftdeckApplyPlan", "applied the reviewed plan to")
	return res, err
}

// target builds what the CLI runs: the mapped local program, or a checkout of
// the Stack's repository at its commit (or branch head).
func (o *Ops) target(ctx context.Context, loc *Location) (pulumirun.Target, func(), error) {
	cli := o.CLI
	if cli == "" {
		var err error
		if cli, err = pulumirun.FindCLI(); err != nil {
			return pulumirun.Target{}, nil, err
		}
	}
	t := pulumirun.Target{Stack: loc.Stack, BackendURL: loc.Backend, Env: env(loc), CLI: cli}
	if loc.Local != nil {
		t.Dir = loc.Local.Dir
		return t, func() {}, nil
	}
	if loc.Repo == "" {
		return t, nil, fmt.Errorf("%s has no spec.projectRepo (Flux source or Program): map it to a local program in the config file", loc.Key.Ref())
	}
	dir, cleanup, err := pulumirun.Checkout(ctx, pulumirun.Source{Repo: loc.Repo, Commit: loc.Commit, Branch: loc.Branch, Dir: loc.RepoDir})
	if err != nil {
		return t, nil, err
	}
	t.Dir = dir
	return t, cleanup, nil
}
