// Package fleetunits turns the generated fleet into driftdeck units, the way
// a watch delivers them: each object through JSON and the dynamic client's
// decoder, then the engine's adapter. For the Go benchmarks of the store and
// the list.
package fleetunits

import (
	"encoding/json"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/driftdeck/driftdeck/backend/argocd"
	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/pulumiop"
	"github.com/driftdeck/driftdeck/backend/store"
	"github.com/driftdeck/driftdeck/testdata/bench/fleetgen"
)

// Context is the cluster context the units belong to.
const Context = "bench"

// Decoded is obj as the dynamic client hands it over: encoded to JSON and
// decoded again (integers as int64, every map fresh).
func Decoded(obj map[string]any) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return u.Object, nil
}

// Units converts apps Applications and stacks Stacks (with their status)
// into units, as the adapters produce them.
func Units(apps, stacks int, now time.Time) ([]*model.Unit, error) {
	out := make([]*model.Unit, 0, apps+stacks)
	for i := range apps {
		obj, err := Decoded(fleetgen.Application(i, now))
		if err != nil {
			return nil, err
		}
		out = append(out, argocd.Convert(Context, obj))
	}
	for i := range stacks {
		stack, status, _, _ := fleetgen.Stack(i, now)
		stack["status"] = status["status"]
		obj, err := Decoded(stack)
		if err != nil {
			return nil, err
		}
		out = append(out, pulumiop.Convert(Context, obj))
	}
	return out, nil
}

// AppSetUnits converts the ApplicationSets that own the first apps
// Applications, as the adapter produces them.
func AppSetUnits(apps int, now time.Time) ([]*model.Unit, error) {
	var out []*model.Unit
	for _, set := range fleetgen.AppSets(apps) {
		obj, status := fleetgen.ApplicationSet(set[0], set[1], now)
		obj["status"] = status
		raw, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		m, err := argocd.DecodeAppSet(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, argocd.ConvertAppSet(Context, m))
	}
	return out, nil
}

// Snapshot is the model the views receive for that fleet: the units
// through a store, derived, in key order.
func Snapshot(apps, stacks int, now time.Time) ([]*model.Unit, error) {
	us, err := Units(apps, stacks, now)
	if err != nil {
		return nil, err
	}
	return snapshot(us, now), nil
}

func snapshot(us []*model.Unit, now time.Time) []*model.Unit {
	s := store.New(model.DefaultThresholds)
	s.SetClock(func() time.Time { return now })
	for _, u := range us {
		s.Put(u)
	}
	b, _ := s.Flush()
	return b.Units
}
