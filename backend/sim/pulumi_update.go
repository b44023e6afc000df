package sim

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// reconcileUpdate plays the operator's Update controller: a new Update starts
// Progressing, and after UpdateDuration completes as the Outcome says. All
// three conditions are always written, with the upstream reasons.
func (p *Pulumi) reconcileUpdate(ctx context.Context, k objectKey) (time.Duration, error) {
	up, err := p.updateClient(k.namespace).Get(ctx, k.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	r := objread.New(up.Object)
	conds := readConditions(r.Slice("status", "conditions"))
	if c := conds.get("Complete"); c != nil && c.Status == metav1.ConditionTrue {
		return 0, nil
	}
	now := time.Now()
	stackName := up.GetLabels()[pulumiop.LabelStackName]
	typ := r.Str("spec", "type")
	progressing := conds.get("Progressing")
	if progressing == nil || progressing.Status != metav1.ConditionTrue {
		conds.set("Progressing", "True", "Progressing", "", now)
		conds.set("Failed", "False", "Progressing", "", now)
		conds.set("Complete", "False", "Progressing", "", now)
		status := map[string]any{"conditions": conds.raw(), "startTime": timestamp(now), "observedGeneration": up.GetGeneration()}
		if _, err := mergePatch(ctx, p.updateClient(k.namespace), k.name, updateManager, map[string]any{"status": status}, "status"); err != nil {
			return 0, err
		}
		p.mu.Lock()
		p.began[k] = now
		p.mu.Unlock()
		return p.opts.UpdateDuration, nil
	}
	out := p.outcome(ctx, k.namespace, stackName, typ)
	if out.Hang {
		return p.opts.UpdateDuration, nil // asked again: a hang can end (its pod deleted)
	}
	p.mu.Lock()
	began, ok := p.began[k]
	if !ok {
		began = progressing.LastTransitionTime.Time // started before this process
	}
	p.mu.Unlock()
	if left := p.opts.UpdateDuration - now.Sub(began); left > 0 {
		return left, nil
	}
	message := r.Str("spec", "message")
	conds.set("Progressing", "False", "Complete", "", now)
	conds.set("Complete", "True", "Updated", "", now)
	if out.FailWith != "" {
		reason := out.FailReason
		if reason == "" {
			reason = "UpdateFailed"
		}
		conds.set("Failed", "True", reason, "", now)
		message = out.FailWith
	} else {
		conds.set("Failed", "False", "UpdateSucceeded", "", now)
	}
	status := map[string]any{"conditions": conds.raw(), "endTime": timestamp(now), "message": message, "observedGeneration": up.GetGeneration()}
	if _, err := mergePatch(ctx, p.updateClient(k.namespace), k.name, updateManager, map[string]any{"status": status}, "status"); err != nil {
		return 0, err
	}
	p.mu.Lock()
	delete(p.began, k)
	p.mu.Unlock()
	if stackName != "" {
		p.stacks.queue.Add(objectKey{k.namespace, stackName})
	}
	return 0, nil
}
