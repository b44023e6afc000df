package argocd

import (
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/internal/mutate"
	"github.com/driftdeck/driftdeck/backend/model"
)

// FuzzConvert feeds Convert realistic objects with parts replaced by values of
// every JSON type, driven by the fuzzer's bytes. Convert must never panic and
// must always return a unit.
func FuzzConvert(f *testing.F) {
	seed := loadApp(f, "app-running.json")
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{255, 3, 7, 1, 200, 13, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		obj := mutate.Object(seed, data)
		u := Convert("ctx", obj)
		if u == nil {
			t.Fatal("nil unit")
		}
		model.Derive(u, time.Now(), model.DefaultThresholds)
		p := NewProjects()
		p.Put("ctx", "argocd", "team-a", ReadWindows(mutate.Object(map[string]any{"spec": map[string]any{"syncWindows": []any{
			map[string]any{"kind": "deny", "schedule": "* * * * *", "duration": "1h", "applications": []any{"*"}},
		}}}, data)))
		p.Classify(u, time.Now())
	})
}
