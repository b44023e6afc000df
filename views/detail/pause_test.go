package detail

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/driftdeck/driftdeck/backend/describe"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/themes"
)

func frozenApp(until time.Time) *model.Unit {
	return &model.Unit{
		Key:  model.Key{Context: "prod", Engine: model.EngineArgoCD, Namespace: "argocd", Name: "checkout"},
		Kind: "Application", Automation: model.Paused,
		Pause: &model.PauseRecord{By: "alice", Reason: "INC-7 freeze", At: now.Add(-time.Hour), Until: until, Mode: "auto-sync"},
	}
}

// pauseLines is the overview's text once the description, with what it
// read of the agent, has arrived.
func pauseLines(u *model.Unit, presence *model.AgentPresence) string {
	m := New(themes.Dark(), u)
	m.SetSize(100, 40)
	m.SetDetail(&describe.Detail{Key: u.Key, Agent: presence}, nil)
	return words(m.View(now))
}

func TestThePauseSaysWhoEndsIt(t *testing.T) {
	until := now.Add(76 * time.Minute)
	at := until.Local().Format("15:04")
	cases := []struct {
		name     string
		presence *model.AgentPresence
		want     string
	}{
		{"an agent holds the Lease", &model.AgentPresence{Running: true, Holder: "driftdeck-agent-7f9c"}, "ends resumes " + at + " by the agent"},
		{"no agent runs", &model.AgentPresence{}, "ends no agent runs: nothing will resume it (expiry " + at + ")"},
		{"the Lease cannot be read", &model.AgentPresence{Unknown: "leases is forbidden"}, "ends expiry " + at + "; whether an agent runs is unknown (leases is forbidden)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := pauseLines(frozenApp(until), c.presence); !strings.Contains(got, c.want) {
				t.Errorf("the pause lacks %q:\n%s", c.want, got)
			}
		})
	}

	expired := pauseLines(frozenApp(now.Add(-5*time.Minute)), &model.AgentPresence{Running: true})
	if !strings.Contains(expired, "the agent resumes it now") {
		t.Errorf("an expired pause with an agent running does not say the agent resumes it:\n%s", expired)
	}
}

func TestThePauseSaysNothingOfTheAgentWhenNoneIsNeededOrKnown(t *testing.T) {
	if got := pauseLines(frozenApp(time.Time{}), &model.AgentPresence{Running: true}); strings.Contains(got, " ends ") || strings.Contains(got, "agent") {
		t.Errorf("a pause without expiry speaks of who ends it:\n%s", got)
	}
	// Before the description arrives nothing is known of the agent.
	m := New(themes.Dark(), frozenApp(now.Add(time.Hour)))
	m.SetSize(100, 40)
	if got := words(m.View(now)); strings.Contains(got, "agent") {
		t.Errorf("the pause speaks of the agent before its Lease was read:\n%s", got)
	}
}

func TestWhatTheLeaseReadSaysIsShownEscaped(t *testing.T) {
	m := New(themes.Dark(), frozenApp(now.Add(time.Hour)))
	m.SetSize(100, 40)
	m.SetDetail(&describe.Detail{Agent: &model.AgentPresence{Unknown: "denied \x1b]0;pwned\x07"}}, nil)
	out := m.View(now)
	if strings.Contains(out, "\x1b]") || !strings.Contains(ansi.Strip(out), `denied \x1b]0;pwned\x07`) {
		t.Errorf("the Lease error is not shown escaped:\n%q", ansi.Strip(out))
	}
}
