package pulumiop

import (
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/internal/mutate"
	"github.com/driftdeck/driftdeck/backend/model"
)

// FuzzConvert: Stacks and Updates with any part malformed never panic.
func FuzzConvert(f *testing.F) {
	seed := loadStack(f)
	f.Add([]byte{0, 1, 2, 3, 4, 5})
	f.Add([]byte{7, 14, 21, 28, 3, 9, 250})
	f.Fuzz(func(t *testing.T, data []byte) {
		u := Convert("ctx", mutate.Object(seed, data))
		model.Derive(u, time.Now(), model.DefaultThresholds)
		x := NewUpdateIndex()
		x.Put(ConvertUpdate("ctx", mutate.Object(map[string]any{
			"metadata": map[string]any{"name": "n", "namespace": "infra", "labels": map[string]any{LabelStackName: "network"}},
			"status":   map[string]any{"conditions": []any{map[string]any{"type": "Progressing", "status": "True"}}},
		}, data)))
		x.Classify(u, time.Now())
	})
}
