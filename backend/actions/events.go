package actions

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/driftdeck/driftdeck/backend/kube"
)

// recordEvent puts a core/v1 Event on the object, naming the actor and the
// reason, so that kubectl describe and every other tool see what was done.
func (e *Executor) recordEvent(ctx context.Context, c *kube.Cluster, req Request, p *Plan, actor string, obj map[string]any) error {
	now := metav1.NewTime(e.now())
	host, _ := os.Hostname()
	msg := fmt.Sprintf("%s %s %s", actor, p.eventVerb, req.Key.Ref())
	if req.Reason != "" {
		msg += ": " + req.Reason
	}
	if !req.Until.IsZero() {
		msg += " (until " + req.Until.UTC().Format("2006-01-02 15:04 MST") + ")"
	}
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: req.Key.Name + ".driftdeck-",
			Namespace:    req.Key.Namespace,
		},
		InvolvedObject: corev1.ObjectReference{
			APIVersion:      lookupString(obj, "apiVersion"),
			Kind:            lookupString(obj, "kind"),
			Namespace:       req.Key.Namespace,
			Name:            req.Key.Name,
			UID:             types.UID(lookupString(obj, "metadata", "uid")),
			ResourceVersion: lookupString(obj, "metadata", "resourceVersion"),
		},
		Reason:              p.eventReason,
		Message:             msg,
		Type:                corev1.EventTypeNormal,
		Source:              corev1.EventSource{Component: "driftdeck", Host: host},
		FirstTimestamp:      now,
		LastTimestamp:       now,
		Count:               1,
		ReportingController: "driftdeck.io/driftdeck",
		ReportingInstance:   host,
		Action:              string(req.Kind),
	}
	opts := metav1.CreateOptions{}
	if e.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	_, err := c.Kube.CoreV1().Events(req.Key.Namespace).Create(ctx, ev, opts)
	return err
}
