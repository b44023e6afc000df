package workspace

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestAWorkspaceKilledForMemoryIsFoundInItsCurrentOrLastState(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	killed := &corev1.ContainerStateTerminated{Reason: "OOMKilled", FinishedAt: metav1.NewTime(now.Add(-5 * time.Minute))}
	failed := &corev1.ContainerStateTerminated{Reason: "Error"}
	pod := func(name string, limit string, state, last *corev1.ContainerStateTerminated) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: name + "-workspace-0", Labels: map[string]string{LabelName: name}},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: Container}}},
			Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: Container, RestartCount: 3, State: corev1.ContainerState{Terminated: state}, LastTerminationState: corev1.ContainerState{Terminated: last}}}}}
		if limit != "" {
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(limit)}
		}
		return p
	}
	got := MemoryKills([]corev1.Pod{
		pod("now", "128Mi", killed, nil),
		pod("before", "", nil, killed),
		pod("failed", "128Mi", failed, failed),
		pod("fine", "128Mi", nil, nil),
	})
	if len(got) != 2 || got[0].Workspace != "now" || got[0].Limit != "128Mi" || !got[0].Down || got[1].Workspace != "before" || got[1].Limit != "" || got[1].Down {
		t.Fatalf("kills %+v", got)
	}
	if s := got[0].Text(now); s != "workspace pod now-workspace-0: container pulumi was killed for memory (OOMKilled) at its memory limit 128Mi, 5m ago; restarted 3 times" {
		t.Errorf("text %q", s)
	}
	if s := got[1].Text(now); s != "workspace pod before-workspace-0: container pulumi was killed for memory (OOMKilled) with no memory limit of its own (a LimitRange's, or the node's memory), 5m ago; restarted 3 times" {
		t.Errorf("text %q", s)
	}
}
