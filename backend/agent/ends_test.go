package agent

import (
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/driftdeck/driftdeck/backend/model"
)

func TestWhoEndsAPauseSaysTheAgentOnlyWhileItRenewsItsLease(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 0, 0, 0, time.Local)
	holder, secs := "agent-0", int32(15)
	lease := func(renewed time.Time) *coordinationv1.Lease {
		return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, RenewTime: &metav1.MicroTime{Time: renewed}}}
	}
	p := &model.PauseRecord{Reason: "INC-1", Until: now.Add(30 * time.Minute)}
	if got := presenceOf(lease(now.Add(-5*time.Second)), now).Ends(p, now); got != "resumes 14:30 by the agent" {
		t.Errorf("a renewed Lease: %q", got)
	}
	if got := presenceOf(lease(now.Add(-time.Minute)), now).Ends(p, now); !strings.HasPrefix(got, "no agent runs: nothing will resume it") {
		t.Errorf("a Lease not renewed for a minute: %q", got)
	}
	if got := (model.AgentPresence{}).Ends(p, now); !strings.HasPrefix(got, "no agent runs") {
		t.Errorf("no Lease: %q", got)
	}
	blocked := model.AgentPresence{Blocked: `agent agent-0 cannot take Lease driftdeck-system/driftdeck-agent: namespaces "driftdeck-system" not found`}
	if got := blocked.Ends(p, now); got != `an agent runs but cannot write: agent agent-0 cannot take Lease driftdeck-system/driftdeck-agent: namespaces "driftdeck-system" not found; nothing will resume it (expiry 14:30)` {
		t.Errorf("an agent that cannot take its Lease: %q", got)
	}
	if got := presenceOf(lease(now), now).Ends(&model.PauseRecord{Reason: "INC-2"}, now); got != "" {
		t.Errorf("a pause without expiry is ended by a person, not the agent: %q", got)
	}
}
