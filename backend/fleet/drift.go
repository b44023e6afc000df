package fleet

import (
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumirun"
)

// RecordDrift keeps a Stack's finished drift check in the live model: the
// unit is marked with it (and drifted when it found drift) until the Stack
// applies another revision or the next check.
func (f *Fleet) RecordDrift(k model.Key, res pulumirun.Result, at time.Time) {
	var applied string
	if u, ok := f.Store.Get(k); ok {
		applied = u.Applied
	}
	f.Drift.Record(k, applied, res, at)
	f.Store.Reclassify(func(u *model.Unit) bool { return u.Key == k })
}
