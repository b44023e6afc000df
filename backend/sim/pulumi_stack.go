package sim

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
)

// stack is what the operator reads of one Stack.
type stack struct {
	obj                         *unstructured.Unstructured
	key                         objectKey
	generation                  int64
	request                     string // the reconciliation-request annotation ("" when absent)
	commit, branch, repo        string
	preview, continueResync     bool
	resyncFrequency, maxBackoff time.Duration
	observedGeneration          int64
	observedRequest             string
	current                     map[string]any // status.currentUpdate
	last                        *lastUpdate
	conds                       conditions
}

type lastUpdate struct {
	raw                           map[string]any
	name, typ, state, request     string
	generation, failures          int64
	lastAttempted, lastSuccessful string
	lastResync                    time.Time
}

func readStack(obj *unstructured.Unstructured) *stack {
	r := objread.New(obj.Object)
	s := &stack{
		obj:                obj,
		key:                objectKey{obj.GetNamespace(), obj.GetName()},
		generation:         obj.GetGeneration(),
		request:            obj.GetAnnotations()[pulumiop.AnnotationReconcileRequest],
		commit:             r.Str("spec", "commit"),
		branch:             r.Str("spec", "branch"),
		repo:               r.Str("spec", "projectRepo"),
		resyncFrequency:    time.Duration(r.Int("spec", "resyncFrequencySeconds")) * time.Second,
		maxBackoff:         time.Duration(r.Int("spec", "retryMaxBackoffDurationSeconds")) * time.Second,
		observedGeneration: r.Int("status", "observedGeneration"),
		observedRequest:    r.Str("status", "observedReconcileRequest"),
		current:            r.Map("status", "currentUpdate"),
		conds:              readConditions(r.Slice("status", "conditions")),
	}
	s.preview, _ = r.Bool("spec", "preview")
	s.continueResync, _ = r.Bool("spec", "continueResyncOnCommitMatch")
	if s.resyncFrequency < time.Minute {
		s.resyncFrequency = time.Minute
	}
	if r.Has("status", "lastUpdate") {
		l := r.At("status", "lastUpdate")
		s.last = &lastUpdate{
			raw: l.Map(), name: l.Str("name"), typ: l.Str("type"), state: l.Str("state"),
			request: l.Str("reconcileRequest"), generation: l.Int("generation"), failures: l.Int("failures"),
			lastAttempted: l.Str("lastAttemptedCommit"), lastSuccessful: l.Str("lastSuccessfulCommit"),
			lastResync: l.Time("lastResyncTime"),
		}
	}
	return s
}

// The ready protocol of the Stack's conditions (stack_types.go upstream):
// Ready is always present, at most one of Reconciling and Stalled is.
func (c *conditions) markReconciling(reason, msg string, now time.Time) {
	c.remove("Stalled")
	c.set("Ready", "False", "NotReadyInProgress", "reconciliation is in progress", now)
	c.set("Reconciling", "True", reason, msg, now)
}

func (c *conditions) markStalled(reason, msg string, now time.Time) {
	c.remove("Reconciling")
	c.set("Ready", "False", "NotReadyStalled", "reconciliation is stalled", now)
	c.set("Stalled", "True", reason, msg, now)
}

func (c *conditions) markReady(now time.Time) {
	c.remove("Reconciling")
	c.remove("Stalled")
	c.set("Ready", "True", "ProcessingCompleted", "the stack has been processed and is up to date", now)
}

// markResult sets the conditions from the outcome of the last update.
func (c *conditions) markResult(l *lastUpdate, now time.Time) {
	switch {
	case l.state == "succeeded":
		c.markReady(now)
	case l.failures >= maxUpdateFailures:
		c.markStalled("UpdateFailed", fmt.Sprintf("%s failed %d times; not retrying until the spec or source changes", l.typ, l.failures), now)
	case l.typ == "preview":
		c.markReconciling("PreviewFailed", fmt.Sprintf("preview failed (%d attempt(s))", l.failures), now)
	default:
		c.markReconciling("RetryingAfterFailure", fmt.Sprintf("%d update failure(s)", l.failures), now)
	}
}

// reconcileStack takes the step the operator's Stack controller would take.
func (p *Pulumi) reconcileStack(ctx context.Context, k objectKey) (time.Duration, error) {
	obj, err := p.stackClient(k.namespace).Get(ctx, k.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	s := readStack(obj)
	now := time.Now()
	before := append(conditions(nil), s.conds...)
	// Every reconcile first records what it observed (not proof of a run).
	status := map[string]any{}
	if s.observedGeneration != s.generation {
		status["observedGeneration"] = s.generation
	}
	if s.observedRequest != s.request {
		status["observedReconcileRequest"] = s.request
	}
	if s.current != nil {
		again, err := p.followUpdate(ctx, s, status, now)
		if err != nil {
			return 0, err
		}
		return again, p.writeStatus(ctx, s, status, before)
	}
	commit, stallReason, stallMsg := p.currentCommit(s)
	if stallReason != "" {
		s.conds.markStalled(stallReason, stallMsg, now)
		return 0, p.writeStatus(ctx, s, status, before)
	}
	synced, why := p.isSynced(s, commit, now)
	if synced {
		var again time.Duration
		if s.last != nil {
			s.conds.markResult(s.last, now)
			if s.last.state == "failed" && s.last.failures < maxUpdateFailures {
				again = p.cooldown(s) - now.Sub(s.last.lastResync)
			}
		}
		return again, p.writeStatus(ctx, s, status, before)
	}
	return 0, p.startUpdate(ctx, s, status, before, commit, why, now)
}

// followUpdate handles a Stack with a currentUpdate: wait for the Update (a
// missing one wedges the Stack, as upstream), or record its result.
func (p *Pulumi) followUpdate(ctx context.Context, s *stack, status map[string]any, now time.Time) (time.Duration, error) {
	cur := objread.New(s.current)
	up, err := p.updateClient(s.key.namespace).Get(ctx, cur.Str("name"), metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return 0, err
	}
	if apierrors.IsNotFound(err) || !updateComplete(up) {
		s.conds.markReconciling("StackProcessing", "stack is being processed", now)
		return 0, nil
	}
	ur := objread.New(up.Object)
	failed := readConditions(ur.Slice("status", "conditions")).get("Failed")
	next := map[string]any{
		"generation":          cur.Int("generation"),
		"reconcileRequest":    cur.Str("reconcileRequest"),
		"name":                up.GetName(),
		"type":                ur.Str("spec", "type"),
		"lastAttemptedCommit": cur.Str("commit"),
		"lastResyncTime":      timestamp(now),
	}
	if p := ur.Str("status", "permalink"); p != "" {
		next["permalink"] = p
	}
	if failed != nil && failed.Status == metav1.ConditionTrue {
		next["state"], next["message"] = "failed", ur.Str("status", "message")
		var failures int64
		if s.last != nil {
			if s.last.lastSuccessful != "" {
				next["lastSuccessfulCommit"] = s.last.lastSuccessful
			}
			if s.last.generation == cur.Int("generation") && s.last.request == cur.Str("reconcileRequest") {
				failures = s.last.failures + 1
			}
		}
		next["failures"] = failures
		p.rec.event(ctx, s.obj, "Warning", "StackUpdateFailure", "Failed to update stack: "+ur.Str("status", "message"))
	} else {
		next["state"], next["lastSuccessfulCommit"], next["failures"] = "succeeded", cur.Str("commit"), int64(0)
		p.rec.event(ctx, s.obj, "Normal", "StackCreated", "Successfully updated stack")
	}
	// lastUpdate is replaced as a whole: fields the new state lacks go.
	if s.last != nil {
		for k := range s.last.raw {
			if _, ok := next[k]; !ok {
				next[k] = nil
			}
		}
	}
	status["lastUpdate"] = next
	status["currentUpdate"] = nil
	s.last = readStack(&unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"lastUpdate": next}}}).last
	s.conds.markResult(s.last, now)
	return immediately, nil
}

func updateComplete(up *unstructured.Unstructured) bool {
	r := objread.New(up.Object)
	c := readConditions(r.Slice("status", "conditions")).get("Complete")
	return c != nil && c.Status == metav1.ConditionTrue && r.Int("status", "observedGeneration") == up.GetGeneration()
}

// currentCommit resolves the Stack's source like the operator's git source:
// a full SHA in spec.commit is used as is; anything else is a ref looked up
// remotely, which an abbreviated SHA never matches.
func (p *Pulumi) currentCommit(s *stack) (commit, stallReason, stallMsg string) {
	switch {
	case s.commit != "" && s.branch != "":
		return "", "SpecInvalid", "only one of commit or branch may be specified"
	case s.commit != "":
		if !fullSHA.MatchString(s.commit) {
			return "", "SourceUnavailable", fmt.Sprintf("no commits found for ref %q", s.commit)
		}
		return s.commit, "", ""
	case s.branch != "":
		if head, ok := p.opts.Git.Head(s.repo, s.branch); ok {
			return head, "", ""
		}
		if s.last != nil {
			return s.last.lastAttempted, "", ""
		}
		return "", "", ""
	}
	return "", "", ""
}

// isSynced is the operator's decision whether a new Update is needed.
func (p *Pulumi) isSynced(s *stack, commit string, now time.Time) (bool, string) {
	l := s.last
	switch {
	case l == nil:
		return false, "Initial stack update"
	case l.generation != s.generation:
		return false, fmt.Sprintf("New stack generation: %d", s.generation)
	case l.request != s.request:
		return false, fmt.Sprintf("Sync request: %q", s.request)
	case l.state == "succeeded":
		if l.lastSuccessful != commit {
			return false, fmt.Sprintf("New commit detected: %q", commit)
		}
		if s.continueResync && now.Sub(l.lastResync) >= s.resyncFrequency {
			return false, fmt.Sprintf("Resync time elapsed: %v", s.resyncFrequency)
		}
		return true, ""
	case l.state == "failed":
		if l.lastAttempted != commit {
			return false, fmt.Sprintf("New commit detected: %q", commit)
		}
		if l.failures >= maxUpdateFailures {
			return true, ""
		}
		if c := p.cooldown(s); now.Sub(l.lastResync) >= c {
			return false, fmt.Sprintf("Backoff time elapsed: %v", c)
		}
	}
	return true, ""
}

// cooldown is the wait before retrying a failed update: Backoff tripled per
// recorded failure, capped at retryMaxBackoffDurationSeconds (24h default).
func (p *Pulumi) cooldown(s *stack) time.Duration {
	limit := 24 * time.Hour
	if s.maxBackoff > 0 {
		limit = s.maxBackoff
	}
	d := p.opts.Backoff
	for f := s.last.failures; f > 0 && d < limit; f-- {
		d *= 3
	}
	return min(d, limit)
}

// startUpdate records currentUpdate, then creates the Update, as upstream
// (status first: a failed create clears it again).
func (p *Pulumi) startUpdate(ctx context.Context, s *stack, status map[string]any, before conditions, commit, why string, now time.Time) error {
	name := fmt.Sprintf("%s-%x", s.key.name, now.UnixMilli())
	typ := "up"
	if s.preview {
		typ = "preview"
	}
	s.conds.markReconciling("StackProcessing", "stack is being processed", now)
	status["currentUpdate"] = map[string]any{"generation": s.generation, "reconcileRequest": s.request, "name": name, "commit": commit}
	if err := p.writeStatus(ctx, s, status, nil); err != nil {
		return err
	}
	p.rec.event(ctx, s.obj, "Normal", "StackUpdateDetected", why)
	up := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": pulumiop.Updates.GroupVersion().String(),
		"kind":       "Update",
		"metadata": map[string]any{
			"name": name, "namespace": s.key.namespace,
			"labels": map[string]any{"pulumi.com/component": "stack", pulumiop.LabelStackName: s.key.name},
			"ownerReferences": []any{map[string]any{
				"apiVersion": s.obj.GetAPIVersion(), "kind": "Stack", "name": s.key.name, "uid": string(s.obj.GetUID()),
				"blockOwnerDeletion": true,
			}},
		},
		"spec": map[string]any{
			"workspaceName": s.key.name, "stackName": objread.New(s.obj.Object).Str("spec", "stack"),
			"type": typ, "message": why, "ttlAfterCompleted": "24h0m0s",
		},
	}}
	if _, err := p.updateClient(s.key.namespace).Create(ctx, up, metav1.CreateOptions{FieldManager: "pulumi-kubernetes-operator"}); err != nil {
		_, clearErr := mergePatch(ctx, p.stackClient(s.key.namespace), s.key.name, stackManager,
			map[string]any{"status": map[string]any{"currentUpdate": nil}}, "status")
		if clearErr != nil {
			return clearErr
		}
		return fmt.Errorf("creating Update %s: %w", name, err)
	}
	return nil
}

// writeStatus patches the Stack's status subresource with what changed.
// before is the conditions as read; nil forces writing them.
func (p *Pulumi) writeStatus(ctx context.Context, s *stack, status map[string]any, before conditions) error {
	if before == nil || !sameConditions(before, s.conds) {
		status["conditions"] = s.conds.raw()
	}
	if len(status) == 0 {
		return nil
	}
	_, err := mergePatch(ctx, p.stackClient(s.key.namespace), s.key.name, stackManager, map[string]any{"status": status}, "status")
	return err
}

func sameConditions(a, b conditions) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message || !x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	return true
}
