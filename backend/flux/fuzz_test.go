package flux

import (
	"encoding/json"
	"testing"

	"github.com/driftdeck/driftdeck/backend/internal/mutate"
	"github.com/driftdeck/driftdeck/backend/model"
)

// FuzzConvert: Kustomizations and HelmReleases with any part malformed never
// panic and always give a unit.
func FuzzConvert(f *testing.F) {
	ks, hr := load(f, "kustomization.json"), load(f, "helmrelease.json")
	f.Add([]byte{0, 1, 2, 3, 4, 5})
	f.Add([]byte{7, 14, 21, 28, 3, 9, 250})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, u := range []*model.Unit{ConvertKustomization("c", mutate.Object(ks, data)), ConvertHelmRelease("c", mutate.Object(hr, data))} {
			if u == nil {
				t.Fatal("nil unit")
			}
			derived(u)
		}
	})
}

// FuzzDecodeKustomization: whenever the slim decoder accepts a
// Kustomization, Convert sees the same unit as from the whole object.
func FuzzDecodeKustomization(f *testing.F) {
	fuzzSlim(f, load(f, "kustomization.json"), DecodeKustomization, ConvertKustomization)
}

// FuzzDecodeHelmRelease: the same for HelmReleases.
func FuzzDecodeHelmRelease(f *testing.F) {
	fuzzSlim(f, load(f, "helmrelease.json"), DecodeHelmRelease, ConvertHelmRelease)
}

func fuzzSlim(f *testing.F, seed map[string]any, decode func([]byte) (map[string]any, error), convert func(string, map[string]any) *model.Unit) {
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
		slim, err := decode(data)
		if err != nil {
			return // the watch falls back to the whole object
		}
		if got, want := convert("c", slim), convert("c", whole); !sameUnit(got, want) {
			t.Fatalf("slim %+v\nwhole %+v", got, want)
		}
	})
}
