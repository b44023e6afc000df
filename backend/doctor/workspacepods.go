package doctor

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/cmdline"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/workspace"
)

// CheckWorkspacePods finds the Stacks whose workspace pod the kernel killed
// for memory (OOMKilled) and that failed or are stuck since, or whose
// container is down now: the update dies with it, and the operator's next
// run dies the same way until the limit or the program changes. The pods
// are listed once per context (by the operator's workspace label), else,
// where that is forbidden, once per namespace holding Stacks; unchecked
// says where they could not be read.
func CheckWorkspacePods(ctx context.Context, units []*model.Unit, cluster func(string) (*kube.Cluster, bool), now time.Time, o cmdline.Origin) (findings []Finding, unchecked []string) {
	stacks := map[string]map[[2]string]*model.Unit{} // context -> namespace/name
	for _, u := range units {
		if u.Key.Engine != model.EnginePulumi {
			continue
		}
		if stacks[u.Key.Context] == nil {
			stacks[u.Key.Context] = map[[2]string]*model.Unit{}
		}
		stacks[u.Key.Context][[2]string{u.Key.Namespace, u.Key.Name}] = u
	}
	contexts := make([]string, 0, len(stacks))
	for name := range stacks {
		contexts = append(contexts, name)
	}
	slices.Sort(contexts)
	for _, name := range contexts {
		c, ok := cluster(name)
		if !ok {
			continue
		}
		kills, why := memoryKills(ctx, c, stacks[name])
		unchecked = append(unchecked, why...)
		for _, k := range kills {
			u := stacks[name][[2]string{k.Namespace, k.Workspace}]
			if u == nil || !k.Down && u.Run != model.Failed && u.Run != model.Stuck {
				// The workspace of an Update named otherwise; or a kill the
				// Stack got over (its run since goes on or succeeded): the
				// detail shows it, nobody needs to act yet.
				continue
			}
			findings = append(findings, Finding{Key: u.Key, State: "killed for memory", Cause: k.Text(now),
				Hint: workspace.Advice + "; then " + suggest(o, u, "retry", u.Key.Ref())})
		}
	}
	return findings, unchecked
}

// memoryKills lists a context's workspace pods: across namespaces, else in
// each namespace of its Stacks.
func memoryKills(ctx context.Context, c *kube.Cluster, stacks map[[2]string]*model.Unit) ([]workspace.MemoryKill, []string) {
	pods, err := c.Kube.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: workspace.Selector})
	if err == nil {
		return workspace.MemoryKills(pods.Items), nil
	}
	if !apierrors.IsForbidden(err) {
		return nil, []string{fmt.Sprintf("workspace pods in context %s: %v", c.Context, err)}
	}
	var namespaces []string
	for key := range stacks {
		if !slices.Contains(namespaces, key[0]) {
			namespaces = append(namespaces, key[0])
		}
	}
	slices.Sort(namespaces)
	var kills []workspace.MemoryKill
	var unchecked []string
	for _, ns := range namespaces {
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: workspace.Selector})
		switch {
		case apierrors.IsForbidden(err):
			unchecked = append(unchecked, "you may not list pods in "+ns+" (RBAC): its Stacks' workspace pods were not checked")
			continue
		case err != nil:
			unchecked = append(unchecked, fmt.Sprintf("workspace pods in %s: %v", ns, err))
			continue
		}
		kills = append(kills, workspace.MemoryKills(pods.Items)...)
	}
	return kills, unchecked
}
