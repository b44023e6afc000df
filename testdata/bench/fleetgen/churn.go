package fleetgen

import (
	"encoding/json"
	"time"
)

// ChurnPatch is a JSON merge patch of Application status the way the Argo CD
// controller writes one after a refresh: a new reconciledAt and, every other
// time, a flip between Synced/Healthy and OutOfSync/Progressing, so the row
// visibly changes.
func ChurnPatch(n int, now time.Time) []byte {
	sync, health := "Synced", "Healthy"
	if n%2 == 1 {
		sync, health = "OutOfSync", "Progressing"
	}
	p, _ := json.Marshal(map[string]any{"status": map[string]any{
		"reconciledAt": stamp(now),
		"sync":         map[string]any{"status": sync},
		"health":       map[string]any{"status": health, "lastTransitionTime": stamp(now)},
	}})
	return p
}
