package ui

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
)

// counts summarise the whole model for the header.
type counts struct {
	total, stuck, failed, drifted, paused, expired, awaiting, blocked int
}

func countUnits(units []*model.Unit, now time.Time) counts {
	c := counts{total: len(units)}
	for _, u := range units {
		switch u.Run {
		case model.Stuck:
			c.stuck++
		case model.Failed:
			c.failed++
		case model.AwaitingApproval:
			c.awaiting++
		case model.BlockedByWindow:
			c.blocked++
		}
		if u.Sync == model.Drifted {
			c.drifted++
		}
		if u.Pause != nil {
			c.paused++
			if u.Pause.Expired(now) {
				c.expired++
			}
		}
	}
	return c
}
