package cli

import (
	"context"
	"time"

	"github.com/driftdeck/driftdeck/backend/agent"
	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/model"
)

// pauseEnds says, per unit with an expiring pause, who will end it: the agent
// of its context (whose Lease, found by its label, is held and renewed) or
// nobody. The Leases are read once per context, and only when some pause has
// an expiry.
func pauseEnds(ctx context.Context, cluster func(string) (*kube.Cluster, bool), units []*model.Unit, now time.Time) map[model.Key]string {
	out := map[model.Key]string{}
	presence := map[string]model.AgentPresence{}
	for _, u := range units {
		if u.Pause == nil || u.Pause.Until.IsZero() {
			continue
		}
		p, ok := presence[u.Key.Context]
		if !ok {
			if c, connected := cluster(u.Key.Context); connected && c.Kube != nil {
				p = agent.Find(ctx, c.Kube, now)
			} else {
				p = model.AgentPresence{Unknown: "not connected to context " + u.Key.Context}
			}
			presence[u.Key.Context] = p
		}
		out[u.Key] = p.Ends(u.Pause, now)
	}
	return out
}
