package fleetunits

import (
	"strconv"

	"github.com/driftdeck/driftdeck/backend/model"
)

// Changes replaces units of a snapshot with changed copies, spread over the
// fleet, as a stream of status changes does.
type Changes struct{ seq int }

// Apply replaces n units of units in place and returns their keys.
func (c *Changes) Apply(units []*model.Unit, n int) map[model.Key]bool {
	changed := make(map[model.Key]bool, n)
	for range n {
		c.seq++
		i := c.seq * 7919 % len(units)
		u := *units[i]
		u.ResourceVersion = strconv.Itoa(c.seq)
		units[i] = &u
		changed[u.Key] = true
	}
	return changed
}
