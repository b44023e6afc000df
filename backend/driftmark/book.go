// Package driftmark keeps the verdict of each Stack's last drift check (a
// refresh preview) and marks the unit with it in the live model: a Stack
// whose resources changed out of band reads "drifted" in the list, the
// detail and the metrics until it applies again or a new check finds
// nothing.
package driftmark

import (
	"fmt"
	"sync"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
)

// Book is a store.Classifier; it is safe for concurrent use.
type Book struct {
	mu    sync.RWMutex
	marks map[model.Key]model.DriftMark
}

// New returns an empty book.
func New() *Book { return &Book{marks: map[model.Key]model.DriftMark{}} }

// Record keeps a finished check of the unit k, which had applied the
// revision applied: the drifted resources of res.
func (b *Book) Record(k model.Key, applied string, res pulumirun.Result, at time.Time) model.DriftMark {
	m := model.DriftMark{Checked: at, Applied: applied}
	for _, s := range res.Drifted() {
		m.Resources = append(m.Resources, fmt.Sprintf("%s %s %s", s.Op, s.Type, s.Name))
	}
	b.mu.Lock()
	b.marks[k] = m
	b.mu.Unlock()
	return m
}

// Classify marks the unit with its last check while that check is about
// what the unit has applied now; drift found makes an in-sync Stack
// drifted.
func (b *Book) Classify(u *model.Unit, _ time.Time) bool {
	b.mu.RLock()
	m, ok := b.marks[u.Key]
	b.mu.RUnlock()
	u.Drift = nil
	if !ok || m.Applied != u.Applied {
		return false
	}
	u.Drift = &m
	if len(m.Resources) > 0 && u.Sync != model.Drifted {
		u.Sync, u.SyncNative = model.Drifted, fmt.Sprintf("refresh found %d resource(s) changed out of band", len(m.Resources))
	}
	return false
}
