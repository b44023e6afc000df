package logs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/workspace"
)

// ErrNoPod means the unit has no pod whose log answers it (yet).
var ErrNoPod = errors.New("no pod to show the log of")

// runnerContainer is the container of tofu-controller's runner pod.
const runnerContainer = "tf-runner"

// The labels the Job controller puts on a Job's pods (the second before
// Kubernetes 1.27).
var jobNameLabels = []string{"batch.kubernetes.io/job-name", "job-name"}

// Targets are the pods a unit's log comes from: a Stack's workspace pod,
// the pods of an Argo CD operation's hook Jobs (the current ones first), a
// Terraform's runner pod, the pods of the Flux controller that reconciles a
// Flux unit (narrowed to its lines).
func (s *Service) Targets(ctx context.Context, k model.Key) ([]Target, error) {
	if api := s.argoRoute(k); api != nil {
		return argoHookTargets(ctx, api, k)
	}
	c, err := s.cluster(k.Context)
	if err != nil {
		return nil, err
	}
	switch k.Engine {
	case model.EnginePulumi:
		return workspaceTargets(ctx, c, k)
	case model.EngineArgoCD:
		return s.hookTargets(ctx, c, k)
	case model.EngineTerraform:
		return runnerTargets(ctx, c, k)
	case model.EngineKustomization, model.EngineHelmRelease:
		return controllerTargets(ctx, c, k)
	}
	return nil, fmt.Errorf("%s: %w: a %s unit has no pod of its own", k.Ref(), ErrNoPod, k.Engine)
}

// Pod describes one pod named directly (from a resource tree, --resource).
func (s *Service) Pod(ctx context.Context, p PodRef) (Target, error) {
	if api := s.argoRoute(p.App); api != nil {
		targets, err := argoResource(ctx, api, p.App, "pod", p.Namespace, p.Name)
		if err != nil {
			return Target{}, err
		}
		return targets[0], nil
	}
	c, err := s.cluster(p.Context)
	if err != nil {
		return Target{}, err
	}
	pod, err := c.Kube.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		return Target{}, fmt.Errorf("reading %s: %w", p, err)
	}
	return podTarget(p.Context, pod, defaultContainer(pod), ""), nil
}

// Resource resolves --resource: pod/<name> or job/<name>, optionally
// pod/<namespace>/<name>, on the unit's destination cluster; the namespace
// defaults to the unit's destination namespace.
func (s *Service) Resource(ctx context.Context, k model.Key, ref string) ([]Target, error) {
	parts := strings.Split(ref, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[len(parts)-1] == "" {
		return nil, &UsageError{fmt.Errorf("--resource %q: want pod/<name> or job/<name> (or kind/<namespace>/<name>)", ref)}
	}
	kind, name := strings.ToLower(parts[0]), parts[len(parts)-1]
	switch kind {
	case "pod", "pods", "po":
		kind = "pod"
	case "job", "jobs":
		kind = "job"
	default:
		return nil, &UsageError{fmt.Errorf("--resource %q: logs are of pods and Jobs (kind pod or job)", ref)}
	}
	if api := s.argoRoute(k); api != nil {
		ns := "" // any namespace of the tree, unless named
		if len(parts) == 3 {
			ns = parts[1]
		}
		return argoResource(ctx, api, k, kind, ns, name)
	}
	c, err := s.cluster(k.Context)
	if err != nil {
		return nil, err
	}
	c, ns, err := s.unitDestination(ctx, c, k)
	if err != nil {
		return nil, err
	}
	if len(parts) == 3 {
		ns = parts[1]
	}
	if kind == "job" {
		return jobTargets(ctx, c, ns, name, "Job "+name)
	}
	t, err := s.Pod(ctx, PodRef{Context: c.Context, Namespace: ns, Name: name})
	if err != nil {
		return nil, err
	}
	return []Target{t}, nil
}

// UsageError is a bad argument, not a failure of the cluster.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ErrUnreachableDestination means an Application's pods are on a cluster
// no connected context reaches.
var ErrUnreachableDestination = errors.New("its destination is not a connected context")

// unitDestination is where a unit's resources live: for an Application
// the cluster its destination maps to and its destination namespace, else
// the unit's own cluster and namespace. A pod of the same name on the
// Application's own cluster would be another pod: an unmapped destination
// is refused, naming it.
func (s *Service) unitDestination(ctx context.Context, c *kube.Cluster, k model.Key) (*kube.Cluster, string, error) {
	if k.Engine != model.EngineArgoCD {
		return c, k.Namespace, nil
	}
	app, err := c.Dynamic.Resource(argocd.Applications).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	return s.destinationOf(app.Object, c, k)
}

// destinationOf is unitDestination for an Application already read.
func (s *Service) destinationOf(app map[string]any, c *kube.Cluster, k model.Key) (*kube.Cluster, string, error) {
	a := objread.New(app)
	if where, remote := remoteDestination(a); remote {
		var dest *kube.Cluster
		if s.Destination != nil {
			dest, _ = s.Destination(app, c)
		}
		if dest == nil {
			return nil, "", fmt.Errorf("%s deploys to %s: %w, and its pods are not in context %s (map it in the config file: destinations: [{server: %s, context: <kubeconfig context>}], and connect that context with --context)",
				k.Ref(), where, ErrUnreachableDestination, c.Context, strings.TrimPrefix(where, "cluster "))
		}
		c = dest
	}
	if ns := a.Str("spec", "destination", "namespace"); ns != "" {
		return c, ns, nil
	}
	return c, k.Namespace, nil
}

// workspaceTargets: the pod of the Workspace that runs the Stack's current
// Update (its spec.workspaceName), else the Stack's own Workspace.
func workspaceTargets(ctx context.Context, c *kube.Cluster, k model.Key) ([]Target, error) {
	stack, err := c.Dynamic.Resource(pulumiop.Stacks).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	st := objread.New(stack.Object)
	ws, why := k.Name, "workspace pod (no Update running"
	if last := st.Str("status", "lastUpdate", "name"); last != "" {
		why += "; the last was " + last
	}
	why += ")"
	if cur := st.Str("status", "currentUpdate", "name"); cur != "" {
		why = "workspace pod running Update " + cur
		up, err := c.Dynamic.Resource(pulumiop.Updates).Namespace(k.Namespace).Get(ctx, cur, metav1.GetOptions{})
		switch {
		case err == nil:
			if name := objread.New(up.Object).Str("spec", "workspaceName"); name != "" {
				ws = name
			}
		case apierrors.IsNotFound(err):
			why = "workspace pod (the current Update " + cur + " does not exist)"
		default:
			return nil, fmt.Errorf("reading Update %s: %w", cur, err)
		}
	}
	pods, err := c.Kube.CoreV1().Pods(k.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: workspace.SelectorOf(ws),
	})
	if err != nil {
		return nil, fmt.Errorf("listing the pods of Workspace %s: %w", ws, err)
	}
	if len(pods.Items) == 0 {
		return nil, fmt.Errorf("%s: %w: Workspace %s has no pod (the operator runs it as StatefulSet %s-workspace; a Pulumi operator v1 Stack runs in the operator's own pod)",
			k.Ref(), ErrNoPod, ws, ws)
	}
	var out []Target
	for i := range newestFirst(pods.Items) {
		out = append(out, podTarget(k.Context, &pods.Items[i], workspace.Container, why))
	}
	return out, nil
}

// runnerTargets: the runner pod tofu-controller starts for a Terraform's
// run, <name>-tf-runner in its namespace. It is there while a run goes on
// (and after, where the controller is told to keep it).
func runnerTargets(ctx context.Context, c *kube.Cluster, k model.Key) ([]Target, error) {
	name := k.Name + "-tf-runner"
	pod, err := c.Kube.CoreV1().Pods(k.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%s: %w: runner pod %s/%s is not there (tofu-controller starts it for a run and removes it after)", k.Ref(), ErrNoPod, k.Namespace, name)
	}
	if err != nil {
		return nil, fmt.Errorf("reading runner pod %s/%s: %w", k.Namespace, name, err)
	}
	return []Target{podTarget(k.Context, pod, runnerContainer, "runner pod of the Terraform's run")}, nil
}

// hookTargets: the pods of the Jobs the Application's last (or running)
// operation ran as hooks, the running hooks first, read on its destination
// cluster (refused when no context reaches it).
func (s *Service) hookTargets(ctx context.Context, c *kube.Cluster, k model.Key) ([]Target, error) {
	app, err := c.Dynamic.Resource(argocd.Applications).Namespace(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", k.Ref(), err)
	}
	c, dest, err := s.destinationOf(app.Object, c, k)
	if err != nil {
		return nil, err
	}
	a := objread.New(app.Object)
	op := a.At("status", "operationState")
	type hook struct{ ns, name, why string }
	var running, rest []hook
	for _, r := range op.Objects("syncResult", "resources") {
		if r.Str("hookType") == "" || r.Str("kind") != "Job" || r.Str("group") != "batch" {
			continue
		}
		ns := r.Str("namespace")
		if ns == "" {
			ns = dest
		}
		phase := r.Str("hookPhase")
		h := hook{ns, r.Str("name"), fmt.Sprintf("pod of %s hook Job %s (%s) of the %s operation", r.Str("hookType"), r.Str("name"), phase, strings.ToLower(op.Str("phase")))}
		if phase == "Running" || phase == "Pending" {
			running = append(running, h)
		} else {
			rest = append(rest, h)
		}
	}
	var out []Target
	for _, h := range append(running, rest...) {
		ts, err := jobTargets(ctx, c, h.ns, h.name, h.why)
		if errors.Is(err, ErrNoPod) {
			continue // a hook deleted by its policy
		}
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w: its operation ran no hook Job with a pod left", k.Ref(), ErrNoPod)
	}
	return out, nil
}

// remoteDestination tells an Application that deploys to another cluster:
// a Job of the same name here would be another Job, its log the wrong one.
func remoteDestination(a *objread.Reader) (string, bool) {
	server, name := a.Str("spec", "destination", "server"), a.Str("spec", "destination", "name")
	switch {
	case server != "" && server != inClusterServer:
		return server, true
	case server == "" && name != "" && name != "in-cluster":
		return "cluster " + name, true
	}
	return "", false
}

// inClusterServer is Argo CD's name for the cluster it runs in.
const inClusterServer = "https://kubernetes.default.svc"

// jobTargets are a Job's pods, the newest (the last attempt) first.
func jobTargets(ctx context.Context, c *kube.Cluster, ns, job, why string) ([]Target, error) {
	for _, label := range jobNameLabels {
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: label + "=" + job})
		if err != nil {
			return nil, fmt.Errorf("listing the pods of Job %s/%s: %w", ns, job, err)
		}
		if len(pods.Items) == 0 {
			continue
		}
		var out []Target
		for i := range newestFirst(pods.Items) {
			p := &pods.Items[i]
			out = append(out, podTarget(c.Context, p, defaultContainer(p), why))
		}
		return out, nil
	}
	return nil, fmt.Errorf("Job %s/%s: %w (not created yet, or removed)", ns, job, ErrNoPod)
}

func newestFirst(pods []corev1.Pod) []corev1.Pod {
	sort.SliceStable(pods, func(i, j int) bool {
		return pods[j].CreationTimestamp.Before(&pods[i].CreationTimestamp)
	})
	return pods
}

func podTarget(context string, pod *corev1.Pod, container, why string) Target {
	names := containerNames(pod)
	if !slices.Contains(names, container) {
		container = defaultContainer(pod)
	}
	return Target{
		Pod:        PodRef{Context: context, Namespace: pod.Namespace, Name: pod.Name},
		Containers: names, Container: container, Why: why,
	}
}
