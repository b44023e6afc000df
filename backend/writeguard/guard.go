package writeguard

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/audit"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// Audit outcomes: every attempt leaves one line with one of these.
const (
	OutcomeDone    = "done"
	OutcomeDryRun  = "dry-run"
	OutcomeRefused = "refused"
	OutcomeFailed  = "failed"
	// OutcomeUnknown: the connection dropped with the write in flight and
	// it could not be read back (see Unknown).
	OutcomeUnknown = "unknown"
)

// eventTimeout bounds the Event that follows a done write.
const eventTimeout = 10 * time.Second

// Guard decides, the same way for every write, whether it may happen, and
// leaves the audit line and the Event.
type Guard struct {
	// Cluster finds a connected context by name.
	Cluster func(context string) (*kube.Cluster, bool)
	// Audit is the local audit log; nil writes none (tests).
	Audit    *audit.Log
	ReadOnly bool
	// DryRun: the writer must write nothing (a Kubernetes patch is sent with
	// server-side dry run; a state-backend write or pulumi up is not done)
	// and say exactly what it would have written.
	DryRun bool
	Now    func() time.Time
}

// Attempt is what a write is about to do.
type Attempt struct {
	Key model.Key
	// Action is the audit log's name of the write (pause, unlock, apply-plan).
	Action string
	Reason string
	// ReasonRequired for destructive actions: the reason goes into the
	// Event and the audit log.
	ReasonRequired bool
	// Resource is the kind of the object whose patch permission the write
	// needs. Whoever may not patch a Stack may not write its state through
	// driftdeck either.
	Resource schema.GroupVersionResource
	// Authority, when set, is who decides and makes the write instead of
	// the Kubernetes API: Argo CD's API server under the user's Argo CD
	// identity and RBAC (ADR 0033).
	Authority Authority
	// Approval names the change request the write applies, its requester
	// and every approver with their reasons (the agent's writes).
	Approval string
}

// Authority decides a write outside Kubernetes RBAC and names the way it
// is sent, for the audit line.
type Authority interface {
	// Identity is the user the write is made as.
	Identity(ctx context.Context) (string, error)
	// WhyNot is why the user may not make the attempt; "" when it may.
	WhyNot(ctx context.Context, a Attempt) (string, error)
	// Route names the way ("argocd-api") and the server.
	Route() (route, server string)
}

// Write is a write the guard let through: what the writer needs, and what
// it tells the guard back.
type Write struct {
	Cluster *kube.Cluster
	Actor   string
	DryRun  bool
	// Entry is the audit line; the writer fills Patch, Previous and
	// ResourceVersion.
	Entry audit.Entry
	// Event, set by the writer, is recorded on the object when the write
	// succeeded (with server-side dry run in dry-run mode).
	Event *Event
	// Warnings found after the write: audit line or Event not recorded.
	Warnings []string
}

// PatchOptions are the options of the write's patch: by fieldManager, and
// a server-side dry run in dry-run mode.
func (w *Write) PatchOptions(fieldManager string) metav1.PatchOptions {
	opts := metav1.PatchOptions{FieldManager: fieldManager}
	if w.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return opts
}

// Event is the core/v1 Event announcing a write.
type Event struct {
	Reason string // DriftdeckPause, DriftdeckUnlock, ...
	Verb   string // "paused auto-sync of", "unstuck the state of", ...
	Object corev1.ObjectReference
	Until  time.Time
}

func (g *Guard) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

// Do checks the attempt, runs write when it may happen, and audits the
// outcome whatever it is. write is not called when the attempt is refused.
// The returned Write is never nil.
func (g *Guard) Do(ctx context.Context, a Attempt, write func(w *Write) error) (*Write, error) {
	w := &Write{DryRun: g.DryRun, Entry: audit.Entry{
		Time: g.now(), Context: a.Key.Context, Unit: a.Key.Ref(), Action: a.Action, Reason: a.Reason, DryRun: g.DryRun,
		Approval: a.Approval,
	}}
	err := g.check(ctx, a, w)
	if err == nil {
		err = write(w)
	}
	if err == nil && w.Event != nil && a.Authority != nil {
		// The write went under another identity than the kube one: the
		// Event is written only where that one may, else the audit line
		// says why none was.
		if why := g.mayRecord(ctx, w, a); why != "" {
			w.Entry.NoEvent, w.Event = why, nil
		}
	}
	switch {
	case err == nil && g.DryRun:
		w.Entry.Outcome = OutcomeDryRun
	case err == nil:
		w.Entry.Outcome = OutcomeDone
	case IsRefusal(err):
		w.Entry.Outcome, w.Entry.Error = OutcomeRefused, err.Error()
	case IsUnknown(err):
		w.Entry.Outcome, w.Entry.Error = OutcomeUnknown, err.Error()
	default:
		w.Entry.Outcome, w.Entry.Error = OutcomeFailed, err.Error()
	}
	if g.Audit != nil {
		if aerr := g.Audit.Append(w.Entry); aerr != nil {
			w.Warnings = append(w.Warnings, aerr.Error())
		}
	}
	if err == nil && w.Event != nil {
		// The write is done: its Event follows even when the caller is
		// stopping (an agent handing over its Lease cancels its context
		// right after a resume), bounded so a dead apiserver cannot hold it.
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), eventTimeout)
		defer cancel()
		if eerr := g.record(ectx, w, a); eerr != nil {
			w.Warnings = append(w.Warnings, "the Kubernetes Event was not recorded: "+eerr.Error())
		}
	}
	return w, err
}

// check is the gate: read-only, reason, who we are, and may we.
func (g *Guard) check(ctx context.Context, a Attempt, w *Write) error {
	if g.ReadOnly {
		return ErrReadOnly
	}
	if g.Audit != nil {
		if err := g.Audit.Writable(); err != nil {
			return Refusef("not written: the audit log cannot record it (%v)", err)
		}
	}
	if a.ReasonRequired && strings.TrimSpace(a.Reason) == "" {
		return Refusef("a reason is required for %s (it goes into the Event and the audit log)", a.Action)
	}
	if !a.Key.Engine.InCluster() {
		// No cluster object: the state backend itself decides when the
		// write runs under the user's credentials (ADR 0043).
		if a.Authority == nil {
			return Refusef("driftdeck does not write %s units without their own authority", a.Key.Engine)
		}
		return g.checkWith(ctx, a, w)
	}
	if a.Resource.Resource == "" {
		return Refusef("driftdeck does not write %s units", a.Key.Engine)
	}
	c, ok := g.Cluster(a.Key.Context)
	if !ok {
		return fmt.Errorf("unknown context %q", a.Key.Context)
	}
	w.Cluster = c
	if a.Authority != nil {
		return g.checkWith(ctx, a, w)
	}
	actor, err := c.Access.Identity(ctx)
	if err != nil {
		return err
	}
	w.Actor, w.Entry.Actor = actor, actor
	v, err := c.Access.Can(ctx, "patch", a.Resource, a.Key.Namespace, "")
	if err != nil {
		return err
	}
	if !v.Allowed {
		return &Refusal{Reason: v.Reason, Permission: true}
	}
	return nil
}

// checkWith asks the attempt's authority who writes and whether they may.
func (g *Guard) checkWith(ctx context.Context, a Attempt, w *Write) error {
	w.Entry.Route, w.Entry.Server = a.Authority.Route()
	actor, err := a.Authority.Identity(ctx)
	if err != nil {
		return err
	}
	w.Actor, w.Entry.Actor = actor, actor
	why, err := a.Authority.WhyNot(ctx, a)
	if err != nil {
		return err
	}
	if why != "" {
		return &Refusal{Reason: why, Permission: true}
	}
	return nil
}

// mayRecord is why the kube identity may not write the write's Event; ""
// when it may.
func (g *Guard) mayRecord(ctx context.Context, w *Write, a Attempt) string {
	v, err := w.Cluster.Access.Can(ctx, "create", eventsResource, a.Key.Namespace, "")
	switch {
	case err != nil:
		return "no Kubernetes Event: could not ask whether one may be written: " + err.Error()
	case !v.Allowed:
		return "no Kubernetes Event: the kube identity may not create Events in " + a.Key.Namespace
	}
	return ""
}

var eventsResource = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// record puts the Event on the object, naming the actor and the reason, so
// that kubectl describe and every other tool see what was done.
func (g *Guard) record(ctx context.Context, w *Write, a Attempt) error {
	ev := w.Event
	now := metav1.NewTime(g.now())
	host, _ := os.Hostname()
	msg := fmt.Sprintf("%s %s %s", w.Actor, ev.Verb, a.Key.Ref())
	if a.Reason != "" {
		msg += ": " + a.Reason
	}
	if !ev.Until.IsZero() {
		msg += " (until " + ev.Until.UTC().Format("2006-01-02 15:04 MST") + ")"
	}
	if a.Approval != "" {
		msg += "; " + a.Approval
	}
	obj := ev.Object
	obj.Namespace, obj.Name = a.Key.Namespace, a.Key.Name
	opts := metav1.CreateOptions{}
	if g.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err := w.Cluster.Kube.CoreV1().Events(a.Key.Namespace).Create(ctx, &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{GenerateName: a.Key.Name + ".driftdeck-", Namespace: a.Key.Namespace},
		InvolvedObject:      obj,
		Reason:              ev.Reason,
		Message:             msg,
		Type:                corev1.EventTypeNormal,
		Source:              corev1.EventSource{Component: "driftdeck", Host: host},
		FirstTimestamp:      now,
		LastTimestamp:       now,
		Count:               1,
		ReportingController: "driftdeck.io/driftdeck",
		ReportingInstance:   host,
		Action:              a.Action,
	}, opts)
	return err
}
