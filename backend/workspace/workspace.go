// Package workspace reads the Pulumi operator v2's workspace pods: where a
// Stack's program runs, found by the labels the operator puts on them
// (operator/internal/controller/auto), and what killed them.
package workspace

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/driftdeck/driftdeck/backend/model"
)

// A Stack's Workspace has the Stack's name; its StatefulSet and pod are
// <workspace>-workspace(-0), labelled with the workspace name, and the
// "pulumi" container runs the agent that runs the update.
const (
	LabelName      = "auto.pulumi.com/workspace-name"
	LabelComponent = "auto.pulumi.com/component"
	Container      = "pulumi"
)

// Selector selects the pods of every workspace.
const Selector = LabelComponent + "=workspace"

// SelectorOf selects the pods of one workspace.
func SelectorOf(workspace string) string { return Selector + "," + LabelName + "=" + workspace }

// MemoryKill is a container of a workspace pod the kernel killed for
// memory: the one now terminated, or the last instance of one restarted.
type MemoryKill struct {
	Namespace, Pod, Workspace, Container string
	// Limit is the container's memory limit as written ("" when none).
	Limit    string
	Restarts int32
	At       time.Time
	// Down: the container is terminated now (not restarted since).
	Down bool
}

// Advice is what the operator's guide says to do about it.
const Advice = "raise the workspace's memory limit (spec.workspaceTemplate.spec.resources.limits.memory), or have the program do less at once (fewer resources or parallel operations per update)"

// Text says what happened, in a person's words.
func (k MemoryKill) Text(now time.Time) string {
	limit := "with no memory limit of its own (a LimitRange's, or the node's memory)"
	if k.Limit != "" {
		limit = "at its memory limit " + k.Limit
	}
	s := fmt.Sprintf("workspace pod %s: container %s was killed for memory (OOMKilled) %s", k.Pod, k.Container, limit)
	if !k.At.IsZero() {
		s += ", " + model.HumanDuration(now.Sub(k.At)) + " ago"
	}
	switch {
	case k.Restarts == 1:
		s += "; restarted once"
	case k.Restarts > 1:
		s += fmt.Sprintf("; restarted %d times", k.Restarts)
	}
	return s
}

// MemoryKills finds the containers of workspace pods killed for memory.
func MemoryKills(pods []corev1.Pod) []MemoryKill {
	var out []MemoryKill
	for _, p := range pods {
		limits := map[string]string{}
		for _, c := range p.Spec.Containers {
			if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
				limits[c.Name] = q.String()
			}
		}
		for _, cs := range p.Status.ContainerStatuses {
			t, down := cs.State.Terminated, true
			if t == nil || t.Reason != "OOMKilled" {
				t, down = cs.LastTerminationState.Terminated, false
			}
			if t == nil || t.Reason != "OOMKilled" {
				continue
			}
			out = append(out, MemoryKill{Namespace: p.Namespace, Pod: p.Name, Workspace: p.Labels[LabelName], Container: cs.Name,
				Limit: limits[cs.Name], Restarts: cs.RestartCount, At: t.FinishedAt.Time, Down: down})
		}
	}
	return out
}
