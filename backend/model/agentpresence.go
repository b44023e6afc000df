package model

import "time"

// AgentPresence says whether an agent holds its Lease in a context now: who
// ends a pause with an expiry depends on it.
type AgentPresence struct {
	// Running: the Lease has a holder and was renewed within its duration.
	Running bool
	Holder  string
	Renewed time.Time
	// Unknown is set when the Lease could not be read (e.g. forbidden):
	// then nobody can say whether an agent runs.
	Unknown string
	// Blocked: no agent holds a Lease, but one runs and says (its Event
	// CannotTakeLeaseReason) why it cannot take its own.
	Blocked string
}

// Ends says in words who will end a pause: the agent at its expiry, or
// nobody. It is "" for a pause without expiry (a person ends it).
func (agent AgentPresence) Ends(p *PauseRecord, now time.Time) string {
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
