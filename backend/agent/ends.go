package agent

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// WhoEnds says in words who will end a pause: the agent at its expiry, or
// nobody. It is "" for a pause without expiry (a person ends it).
func WhoEnds(p *model.PauseRecord, agent Presence, now time.Time) string {
	if p == nil || p.Until.IsZero() {
		return ""
	}
	switch {
	case agent.Unknown != "":
		return "expiry " + clock(p.Until, now) + "; whether an agent runs is unknown (" + agent.Unknown + ")"
	case !agent.Running && agent.Blocked != "":
		return "an agent runs but cannot write: " + agent.Blocked + "; nothing will resume it (expiry " + clock(p.Until, now) + ")"
	case !agent.Running:
		return "no agent runs: nothing will resume it (expiry " + clock(p.Until, now) + ")"
	case p.Expired(now):
		return "expired " + clock(p.Until, now) + ": the agent resumes it now"
	}
	return "resumes " + clock(p.Until, now) + " by the agent"
}

// clock is the expiry in local time, with the date when it is not today.
func clock(t, now time.Time) string {
	t, now = t.Local(), now.Local()
	if t.YearDay() == now.YearDay() && t.Year() == now.Year() {
		return t.Format("15:04")
	}
	return t.Format("2006-01-02 15:04")
}
