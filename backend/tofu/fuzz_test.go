package tofu

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/internal/mutate"
	"github.com/driftdeck/driftdeck/backend/model"
)

// FuzzConvert: Terraform objects with any part malformed never panic.
func FuzzConvert(f *testing.F) {
	seed := load(f)
	f.Add([]byte{0, 1, 2, 3, 4, 5})
	f.Add([]byte{7, 14, 21, 28, 3, 9, 250})
	f.Fuzz(func(t *testing.T, data []byte) {
		u := Convert("c", mutate.Object(seed, data))
		model.Derive(u, time.Now(), model.DefaultThresholds)
	})
}

// FuzzDecodeSlim: whenever the slim decoder accepts an object, Convert sees
// the same unit as from the whole object.
func FuzzDecodeSlim(f *testing.F) {
	seed := load(f)
	f.Add([]byte{0, 1, 2, 3})
	f.Add([]byte{7, 14, 21, 200})
	f.Fuzz(func(t *testing.T, b []byte) {
		data, err := json.Marshal(mutate.Object(seed, b))
		if err != nil {
			return
		}
		var whole map[string]any
		if json.Unmarshal(data, &whole) != nil {
			return
		}
		slim, err := DecodeSlim(data)
		if err != nil {
			return
		}
		if got, want := Convert("c", slim), Convert("c", whole); !sameUnit(got, want) {
			t.Fatalf("slim %+v\nwhole %+v", got, want)
		}
	})
}
