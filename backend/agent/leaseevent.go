package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// An agent that cannot take its Lease holds none, so `status` and the TUI,
// which find agents by their Leases, would say that no agent runs. It
// records a Warning Event instead, renewed every eventEvery while the
// trouble lasts; Find counts one renewed within blockedFresh as current.
const (
	CannotTakeLeaseReason = "CannotTakeLease"
	eventComponent        = "driftdeck-agent"
	eventEvery            = 30 * time.Second
	blockedFresh          = 3 * eventEvery
)

// blockedEvent is the Event this replica recorded about its Lease trouble.
type blockedEvent struct {
	namespace, name string
	count           int32
	at              time.Time // of the last try to record or renew it
	err             error     // of that try
}

// blockedEventOf keeps the Event of an earlier trouble of the same Lease,
// to be renewed at once with the new reason.
func blockedEventOf(l *leaseTrouble) blockedEvent {
	if l == nil {
		return blockedEvent{}
	}
	return blockedEvent{namespace: l.event.namespace, name: l.event.name, count: l.event.count, err: l.event.err}
}

func (b blockedEvent) due(now time.Time) bool { return b.at.IsZero() || now.Sub(b.at) >= eventEvery }

// record writes the Event, or renews the one written before: in the
// Lease's namespace about the Lease or, when that namespace does not exist,
// in "default" about the missing Namespace (where Events about
// cluster-scoped objects live).
func (b blockedEvent) record(ctx context.Context, e *Election, trouble error, now time.Time) blockedEvent {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	msg := fmt.Sprintf("agent %s cannot take Lease %s/%s: %v", e.Identity, e.Namespace, e.Name, trouble)
	b.at = now
	b.count++
	if b.name != "" {
		patch, _ := json.Marshal(map[string]any{"message": msg, "count": b.count, "lastTimestamp": metav1.NewTime(now)})
		_, b.err = e.Client.CoreV1().Events(b.namespace).Patch(ctx, b.name, types.MergePatchType, patch, metav1.PatchOptions{})
		if !apierrors.IsNotFound(b.err) {
			return b
		}
		b.count = 1
	}
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: e.Name + "-cannot-take-lease-", Namespace: e.Namespace},
		InvolvedObject: corev1.ObjectReference{APIVersion: "coordination.k8s.io/v1", Kind: "Lease", Namespace: e.Namespace, Name: e.Name},
		Reason:         CannotTakeLeaseReason,
		Message:        msg,
		Type:           corev1.EventTypeWarning,
		Source:         corev1.EventSource{Component: eventComponent},
		FirstTimestamp: metav1.NewTime(now),
		LastTimestamp:  metav1.NewTime(now),
		Count:          b.count,
	}
	made, err := e.Client.CoreV1().Events(ev.Namespace).Create(ctx, ev, metav1.CreateOptions{})
	if apierrors.IsNotFound(err) {
		ev.Namespace = metav1.NamespaceDefault
		ev.InvolvedObject = corev1.ObjectReference{APIVersion: "v1", Kind: "Namespace", Name: e.Namespace}
		made, err = e.Client.CoreV1().Events(ev.Namespace).Create(ctx, ev, metav1.CreateOptions{})
	}
	b.err = err
	if err == nil {
		b.namespace, b.name = made.Namespace, made.Name
	}
	return b
}

// blocked is what the freshest Event of an agent that cannot take its
// Lease says, "" when there is none (or it may not be read).
func blocked(ctx context.Context, c kubernetes.Interface, now time.Time) string {
	l, err := c.CoreV1().Events(metav1.NamespaceAll).List(ctx, metav1.ListOptions{FieldSelector: "reason=" + CannotTakeLeaseReason})
	if err != nil {
		return ""
	}
	var best *corev1.Event
	for i := range l.Items {
		ev := &l.Items[i]
		// Some API servers (and fakes) ignore field selectors: check again.
		if ev.Reason != CannotTakeLeaseReason || ev.Source.Component != eventComponent || now.Sub(ev.LastTimestamp.Time) > blockedFresh {
			continue
		}
		if best == nil || ev.LastTimestamp.After(best.LastTimestamp.Time) {
			best = ev
		}
	}
	if best == nil {
		return ""
	}
	return best.Message
}
