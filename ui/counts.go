package ui

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// counts summarise the whole model for the header.
type counts struct {
	total, stuck, failed, drifted, paused, expired, awaiting, blocked int
	// pauses are the paused units' records by key: few, and read again at
	// every batch, since whether a pause has expired follows the clock.
	pauses map[model.Key]*model.PauseRecord
}

func countUnits(units []*model.Unit, now time.Time) counts {
	c := counts{total: len(units), pauses: map[model.Key]*model.PauseRecord{}}
	for _, u := range units {
		c.tally(u, 1)
	}
	c.countPauses(now)
	return c
}

// recount is c after a batch. When units are the last batch's (prev, both
// in key order) with some replaced at the same places, only those are
// counted again: reading each of 70,000 units, scattered in memory, cost
// about as much as the rest of the batch. c is not used afterwards.
func (c counts) recount(prev, units []*model.Unit, now time.Time) counts {
	if c.pauses == nil || len(prev) != len(units) {
		return countUnits(units, now)
	}
	for i, u := range units {
		if prev[i] == u {
			continue
		}
		if prev[i].Key != u.Key {
			return countUnits(units, now)
		}
		c.tally(prev[i], -1)
		c.tally(u, 1)
	}
	c.countPauses(now)
	return c
}

// tally adds u to the counts (by 1), or takes it out (by -1).
func (c *counts) tally(u *model.Unit, by int) {
	switch u.Run {
	case model.Stuck:
		c.stuck += by
	case model.Failed:
		c.failed += by
	case model.AwaitingApproval:
		c.awaiting += by
	case model.BlockedByWindow:
		c.blocked += by
	}
	if u.Sync == model.Drifted {
		c.drifted += by
	}
	switch {
	case u.Pause != nil && by > 0:
		c.pauses[u.Key] = u.Pause
	case u.Pause != nil:
		delete(c.pauses, u.Key)
	}
}

func (c *counts) countPauses(now time.Time) {
	c.paused, c.expired = len(c.pauses), 0
	for _, p := range c.pauses {
		if p.Expired(now) {
			c.expired++
		}
	}
}
