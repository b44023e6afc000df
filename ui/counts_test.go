package ui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/store"
)

// The header's counts follow batches that replace units in place, the
// batches a live estate sends, as a count of the whole model would: a unit
// that gets stuck, is paused, has its pause expire, is resumed, and a
// batch that adds a unit.
func TestTheHeaderCountsFollowEachBatch(t *testing.T) {
	a, _ := newTestApp(t, 160, 40)
	units := fixtureUnits()
	send := func(what string, change func(us []*model.Unit) []*model.Unit) {
		t.Helper()
		next := append([]*model.Unit(nil), units...)
		next = change(next)
		changed := map[model.Key]bool{}
		for i, u := range next {
			if i >= len(units) || units[i] != u {
				changed[u.Key] = true
			}
		}
		units = next
		a.Update(BatchMsg(store.Batch{Units: next, Changed: changed}))
		if got, want := a.counts, countUnits(units, a.now()); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the header counts %+v; counted whole, the model holds %+v", what, got, want)
		}
	}
	replace := func(i int, edit func(u *model.Unit)) func(us []*model.Unit) []*model.Unit {
		return func(us []*model.Unit) []*model.Unit {
			u := *us[i]
			edit(&u)
			us[i] = &u
			return us
		}
	}
	i := len(units) - 1
	send("a unit stuck", replace(i, func(u *model.Unit) { u.Run = model.Stuck }))
	send("the same unit failed and drifted", replace(i, func(u *model.Unit) { u.Run, u.Sync = model.Failed, model.Drifted }))
	send("paused for an hour", replace(0, func(u *model.Unit) {
		u.Pause = &model.PauseRecord{By: "oncall", At: fixedNow, Until: fixedNow.Add(time.Hour)}
	}))
	if !strings.Contains(plain(a), "paused") {
		t.Errorf("a paused unit is not counted in the header:\n%s", plain(a))
	}
	send("its pause expired", replace(0, func(u *model.Unit) {
		u.Pause = &model.PauseRecord{By: "oncall", At: fixedNow.Add(-2 * time.Hour), Until: fixedNow.Add(-time.Hour)}
	}))
	send("resumed", replace(0, func(u *model.Unit) { u.Pause = nil }))
	send("a unit added", func(us []*model.Unit) []*model.Unit {
		u := *us[i]
		u.Key.Name += "-2"
		u.Run = model.Stuck
		return append(us, &u)
	})
	send("a unit gone", func(us []*model.Unit) []*model.Unit { return us[1:] })
}
