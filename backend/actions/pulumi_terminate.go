package actions

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/workspace"
)

// SilentFor is how long a workspace pod must have written nothing before
// its update counts as hung and may be aborted: a `pulumi up` that waits on
// a slow cloud API still prints its progress every few seconds.
const SilentFor = 10 * time.Minute

var pods = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// planStackTerminate aborts a Stack's hung update as the operator's guide
// does it ("purge the pod and retry"): the workspace pod running it is
// deleted, bound to its uid, and a new run is requested. It is refused
// while the pod still writes its log: a slow update is not a hung one.
func planStackTerminate(env *planEnv, obj map[string]any, req Request) (*Plan, error) {
	u := pulumiop.Convert(env.cluster.Context, obj)
	f := u.Stack
	if f.CurrentUpdate == "" {
		return nil, nothingToDo("%s runs no update: nothing to abort (retry requests a new run)", u.Key.Ref())
	}
	up, err := env.currentUpdate(u.Key.Namespace, f.CurrentUpdate, u.Key.Name)
	if err != nil {
		return nil, err
	}
	if ran := env.now.Sub(up.Started); up.Started.IsZero() || ran < SilentFor {
		return nil, refusef("%s: update %s has run for %s: it counts as hung only once it has run past %s with a silent workspace pod",
			u.Key.Ref(), f.CurrentUpdate, model.HumanDuration(max(ran, 0)), model.HumanDuration(SilentFor))
	}
	ws := orWord(up.Workspace, u.Key.Name)
	list, err := env.cluster.Kube.CoreV1().Pods(u.Key.Namespace).List(env.ctx, metav1.ListOptions{LabelSelector: workspace.SelectorOf(ws)})
	if err != nil {
		return nil, fmt.Errorf("listing the pods of Workspace %s: %w", ws, err)
	}
	if len(list.Items) == 0 {
		return nil, refusef("%s: Workspace %s has no pod: nothing runs the update to abort; retry requests a new run", u.Key.Ref(), ws)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[j].CreationTimestamp.Before(&list.Items[i].CreationTimestamp) })
	pod := list.Items[0]
	if v, err := env.cluster.Access.Can(env.ctx, "delete", pods, pod.Namespace, pod.Name); err != nil || !v.Allowed {
		why := "cannot check permission"
		if err == nil {
			why = orWord(v.Reason, "not allowed")
		}
		return nil, &Refusal{Reason: fmt.Sprintf("%s: you may not delete pod %s/%s (%s), which aborting the update takes", u.Key.Ref(), pod.Namespace, pod.Name, why), Permission: true}
	}
	c := env.cluster
	silence, err := silentSince(env.ctx, c, &pod, env.now)
	if err != nil {
		return nil, err
	}
	if silence < SilentFor {
		return nil, refusef("%s: workspace pod %s wrote its log %s ago: update %s is working, not hung (it counts as hung after %s of silence); see `logs %s`",
			u.Key.Ref(), pod.Name, model.HumanDuration(silence), f.CurrentUpdate, model.HumanDuration(SilentFor), u.Key.Ref())
	}
	p, err := planStackRetry(env, obj, req)
	if err != nil {
		return nil, err
	}
	uid := string(pod.UID)
	p.before = []sideWrite{{gvr: pods, namespace: pod.Namespace, name: pod.Name, deleteUID: uid,
		change: fmt.Sprintf("pod/%s/%s: deleted (uid %s; its log silent for %s)", pod.Namespace, pod.Name, uid, model.HumanDuration(silence)),
		// Checked again just before the delete: a plan shown a minute ago
		// must not kill a pod that has started to talk since.
		check: func(ctx context.Context, now time.Time) error {
			silence, err := silentSince(ctx, c, &pod, now)
			if err != nil {
				return err
			}
			if silence < SilentFor {
				return refusef("workspace pod %s/%s wrote its log %s ago, after the plan was made: the update is working; nothing written", pod.Namespace, pod.Name, model.HumanDuration(silence))
			}
			return nil
		}}}
	p.Changes = append([]string{p.before[0].change}, p.Changes...)
	p.Summary = fmt.Sprintf("abort the hung update %s of %s: delete its silent workspace pod, then request a new run", f.CurrentUpdate, u.Key.Ref())
	p.eventReason, p.eventVerb = "DriftdeckTerminate", "aborted the hung update "+f.CurrentUpdate+" of"
	p.Warnings = []string{"the update stops where it is: what it was creating or changing may be left half done, and the new run reconciles it",
		"on a self-managed state backend the dead update's lock may stay held: the new run then fails on it, and `unlock` breaks it"}
	return p, nil
}

// runningUpdate is what aborting needs of the Update a Stack runs: when it
// started, and the Workspace running it (spec.workspaceName; "" is the
// Stack's own).
type runningUpdate struct {
	Started   time.Time
	Workspace string
}

func (env *planEnv) currentUpdate(ns, update, stack string) (runningUpdate, error) {
	up, err := env.cluster.Dynamic.Resource(pulumiop.Updates).Namespace(ns).Get(env.ctx, update, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return runningUpdate{}, refusef("pulumi/%s/%s: its current Update %s does not exist, so no pod runs it: the Stack is wedged, not hung (doctor prints its fix)", ns, stack, update)
	case err != nil:
		return runningUpdate{}, fmt.Errorf("reading Update %s: %w", update, err)
	}
	r := objread.New(up.Object)
	return runningUpdate{Started: pulumiop.ConvertUpdate(env.cluster.Context, up.Object).Started, Workspace: r.Str("spec", "workspaceName")}, nil
}

// silentSince is how long the pod's pulumi container has written nothing:
// since its last log line, as the kubelet stamped it, or, with no line
// yet, since the container started.
func silentSince(ctx context.Context, c *kube.Cluster, pod *corev1.Pod, now time.Time) (time.Duration, error) {
	one := int64(1)
	rc, err := c.OpenLog(ctx, pod.Namespace, pod.Name, &corev1.PodLogOptions{Container: workspace.Container, TailLines: &one, Timestamps: true})
	if err != nil {
		return 0, fmt.Errorf("reading the log of workspace pod %s/%s (driftdeck aborts only an update it sees silent): %w", pod.Namespace, pod.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, 64<<10))
	if err != nil {
		return 0, fmt.Errorf("reading the log of workspace pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if line := strings.TrimSpace(string(b)); line != "" {
		stamp, _, _ := strings.Cut(line, " ")
		at, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil {
			return 0, fmt.Errorf("workspace pod %s/%s: the log's time stamp %q cannot be read", pod.Namespace, pod.Name, stamp)
		}
		return now.Sub(at), nil
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == workspace.Container && cs.State.Running != nil {
			return now.Sub(cs.State.Running.StartedAt.Time), nil
		}
	}
	return 0, fmt.Errorf("workspace pod %s/%s: its %s container is not running and has logged nothing", pod.Namespace, pod.Name, workspace.Container)
}
