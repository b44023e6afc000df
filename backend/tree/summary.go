package tree

import (
	"strconv"
	"strings"

	"github.com/driftdeck/driftdeck/backend/model"
)

// State is a unit's state in one word, as a parent row counts it; the
// order is from the worst.
type State uint8

const (
	Stuck State = iota
	Failed
	Blocked
	Awaiting
	Running
	Degraded
	Drifted
	Paused
	Unknown
	OK
	numStates
)

var stateWords = [numStates]string{"stuck", "failed", "blocked", "awaiting", "running", "degraded", "drifted", "paused", "unknown", "ok"}

func (s State) String() string { return stateWords[s] }

// StateOf is the one word a parent's summary counts a unit under: its run
// state when it is doing or failing something, else its health, sync and
// automation, the worst first.
func StateOf(u *model.Unit) State {
	switch u.Run {
	case model.Stuck:
		return Stuck
	case model.Failed:
		return Failed
	case model.BlockedByWindow:
		return Blocked
	case model.AwaitingApproval:
		return Awaiting
	case model.Running:
		return Running
	}
	switch {
	case u.Health == model.Degraded || u.Health == model.Missing:
		return Degraded
	case u.Sync == model.Drifted:
		return Drifted
	case u.Automation == model.Paused || u.Automation == model.Suspended || u.Pause != nil:
		return Paused
	case u.Health == model.Healthy || u.Sync == model.InSync:
		return OK
	}
	return Unknown
}

// Summary counts the states of the units below a parent.
type Summary struct {
	Total  int
	Counts [numStates]int
}

func (s *Summary) add(st State) {
	s.Total++
	s.Counts[st]++
}

func (s *Summary) merge(o Summary) {
	s.Total += o.Total
	for i, c := range o.Counts {
		s.Counts[i] += c
	}
}

// Worst is the worst state counted; ok when nothing is counted.
func (s Summary) Worst() State {
	for st, c := range s.Counts {
		if c > 0 {
			return State(st)
		}
	}
	return OK
}

// Count is how many units below are in a state.
func (s Summary) Count(st State) int { return s.Counts[st] }

// String is the summary a parent row shows, the worst state first:
// "12 below: 1 failed, 2 drifted, 9 ok".
func (s Summary) String() string {
	if s.Total == 0 {
		return ""
	}
	var parts []string
	for st, c := range s.Counts {
		if c > 0 {
			parts = append(parts, strconv.Itoa(c)+" "+State(st).String())
		}
	}
	return strconv.Itoa(s.Total) + " below: " + strings.Join(parts, ", ")
}

// Map returns the counts by state word, for JSON.
func (s Summary) Map() map[string]int {
	out := map[string]int{}
	for st, c := range s.Counts {
		if c > 0 {
			out[State(st).String()] = c
		}
	}
	return out
}
